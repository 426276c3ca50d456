/**
 * A webhook's target as a message may show it: scheme and host, and `/…` for whatever path or
 * query follows. A webhook URL's path is often its secret (Slack's and Discord's incoming
 * webhooks); errors, approval questions and logs name the host instead.
 */
export const shownWebhookTarget = (url: string): string => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'an invalid URL';
  }
  const more = parsed.pathname !== '/' || parsed.search !== '' ? '/…' : '';
  return `${parsed.protocol}//${parsed.host}${more}`;
};
