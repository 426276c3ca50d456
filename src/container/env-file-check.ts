import { nearestName } from '../domain/text/nearest-name.js';

/**
 * What `.env` holds that the service would silently ignore: a name that is no setting (a typo
 * such as DATABSE_URL starts the service on a new embedded database), a line that is not
 * NAME=value (`PORT:39557`), a name given twice (the last value counts). Node's own parser
 * (process.loadEnvFile) drops all of these without a word.
 *
 * A near-miss of a setting's name, and a line that is not NAME=value but starts with a setting's
 * name, are problems (start-up and the CLI stop): the setting the operator meant would be
 * missing. A name far from every setting may be a variable of the operator's own (for command
 * actions through COMMAND_ENV, or for the processes the service starts): a warning. Values are
 * never quoted in a message: a line may hold a secret.
 */
export interface EnvFileCheck {
  /** Stop start-up (ConfigError lines). */
  readonly problems: readonly string[];
  /** One line each on stderr; start-up goes on. */
  readonly warnings: readonly string[];
}

export interface KnownNames {
  /** Every setting's name (the variables the configuration reads; config.ts settingNames). */
  readonly settings: ReadonlySet<string>;
  /** Other names that are not reported: COMMAND_ENV's, the providers' key variables, Node's own. */
  readonly others: ReadonlySet<string>;
  /** Prefixes of names of the operator's own that the service reads (`AGENT_`). */
  readonly prefixes: readonly string[];
}

/** Variables of Node.js and of the C library that a .env may set for the service's process. */
export const PROCESS_VARIABLES: readonly string[] = ['NODE_OPTIONS', 'NODE_ENV', 'MALLOC_TRIM_THRESHOLD_', 'UV_THREADPOOL_SIZE', 'TZ', 'LANG', 'PATH', 'HOME'];

const QUOTES = new Set(['"', "'", '`']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The setting `name` is most likely a misspelling of: the same but for case, or one or two edits away (one for a short name). */
export const nearestSetting = (name: string, settings: ReadonlySet<string>): string | undefined => {
  const upper = name.toUpperCase();
  return settings.has(upper) ? upper : nearestName(upper, settings);
};

/** Checks the text of a `.env` file (as Node reads it: NAME=value lines, `export ` allowed, # comments, quoted values over several lines). */
export const checkEnvFile = (text: string, known: KnownNames): EnvFileCheck => {
  const problems: string[] = [];
  const warnings: string[] = [];
  const firstLine = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const number = index + 1;
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line;
    const equals = body.indexOf('=');
    const name = equals > 0 ? body.slice(0, equals).trim() : '';
    if (equals <= 0 || !NAME.test(name)) {
      // Not NAME=value: Node drops the line. Only its first word is named, never the rest.
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(body)?.[0];
      const meant = word === undefined ? undefined : known.settings.has(word) ? word : nearestSetting(word, known.settings);
      if (meant !== undefined) problems.push(`.env line ${number} (${word}…) is not NAME=value, so ${meant} would not be set: write ${meant}=<value>`);
      else warnings.push(`.env line ${number}${word === undefined ? '' : ` (${word}…)`} is not NAME=value nor a # comment: it is ignored`);
      continue;
    }
    // A quoted value goes on over the next lines, up to the next line that holds its quote (as
    // Node reads it): settings on the lines between are part of the value, and are not set. A
    // quote no later line closes is kept as part of the value (a command `"echo …` then fails
    // with a shell syntax error when it runs), and the lines after it are read as usual.
    const value = body.slice(equals + 1).trimStart();
    const quote = value[0];
    if (quote !== undefined && QUOTES.has(quote) && !value.slice(1).includes(quote)) {
      let close = index + 1;
      while (close < lines.length && !lines[close]!.includes(quote)) close++;
      if (close === lines.length)
        problems.push(
          `.env line ${number}: the value of ${name} opens a ${quote} that no later line closes, so the ${quote} would be part of the value; close it on line ${number}, or remove it`,
        );
      else {
        const swallowed = lines
          .slice(index + 1, close + 1)
          .map((line) => /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1])
          .filter((word): word is string => word !== undefined && known.settings.has(word));
        if (swallowed.length > 0)
          problems.push(
            `.env line ${number}: the value of ${name} opens a ${quote} that only line ${close + 1} closes, so lines ${number + 1}–${close + 1} are part of that value and ${swallowed.join(', ')} would not be set; close the ${quote} on line ${number}`,
          );
        index = close;
      }
    }
    const before = firstLine.get(name);
    if (before !== undefined) warnings.push(`.env line ${number}: ${name} is given again (line ${before}): the last value counts`);
    else firstLine.set(name, number);
    if (known.settings.has(name) || known.others.has(name) || known.prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const meant = nearestSetting(name, known.settings);
    if (meant !== undefined)
      problems.push(`.env line ${number}: ${name} is not a setting; did you mean ${meant}? (a variable of your own for command actions goes in COMMAND_ENV)`);
    else warnings.push(`.env line ${number}: ${name} is not a setting of the service: it is ignored, unless COMMAND_ENV names it for command actions`);
  }
  return { problems, warnings };
};

/**
 * Whether `name` is `setting` numbered or in the plural (PORT0, PORT1, PORTS): how other programs
 * name variables of their own beside a setting's (Marathon sets PORT0…PORTn and PORTS with PORT on
 * every task), where a typo seldom only adds digits or an S at the end.
 */
const numberedOrPlural = (name: string, setting: string): boolean => {
  const upper = name.toUpperCase();
  return upper.startsWith(setting) && /^(?:[0-9]+|S)$/.test(upper.slice(setting.length));
};

/**
 * The environment's own names (not `.env`'s) that are near-misses of a setting's, one warning
 * each: `LOG_LEVL=debug npm start` ran at `info` without a word. Only names that could be a
 * setting's (letters, digits, `_`) are looked at, so no line holds a control character. A name
 * that is the setting meant numbered or in the plural (PORT0, PORTS) is another program's, not
 * warned of: on a platform that sets it, the line would come at every start and mean nothing
 * (.env, written for the service, still refuses it).
 */
export const checkEnvironmentNames = (names: Iterable<string>, known: KnownNames): string[] => {
  const warnings: string[] = [];
  for (const name of names) {
    if (!NAME.test(name) || known.settings.has(name) || known.others.has(name) || known.prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const meant = nearestSetting(name, known.settings);
    if (meant !== undefined && !numberedOrPlural(name, meant)) warnings.push(`environment: ${name} is not a setting; did you mean ${meant}? It is ignored`);
  }
  return warnings;
};
