/**
 * Deepest nesting of arrays and objects a JSON value taken in may have (the top-level object or
 * array is level 1): every JSON body at the HTTP edge (accept-json-value.ts, parse-json.ts), and
 * the JSON a chat platform nests in a form field (Slack's interactivity `payload`). GitHub, Slack
 * and Telegram payloads stay under 10; everything that handles a value later — JSON.stringify,
 * structured cloning, logging — recurses, and fails around a few thousand.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text opens more than `limit` arrays or objects inside one another, read from
 * the text (brackets in strings do not count) without recursion. A text that does is refused for
 * its depth before it is parsed: a reviver recurses once per level (a text some thousands of
 * levels deep would exhaust the stack in it and read as invalid JSON), and JSON.parse itself
 * takes time that grows faster than the depth (a megabyte of `[` held the event loop 0.4 to
 * 1.2 s, four megabytes 4 s, whether or not the brackets are ever closed).
 */
export const nestedDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      // A backslash: the character after it is escaped.
      if (char === 0x5c) i++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
};
