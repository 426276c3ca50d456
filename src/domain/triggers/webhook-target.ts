/**
 * A webhook's target as anything the gateway shows or logs names it (admin pages, approval
 * questions, delivery errors, logs): the scheme, the host and the port, then `/…` when a path
 * or a query follows. A webhook URL often carries its secret in the path (Slack's and Discord's
 * incoming webhooks, a bot token), the query (`?token=`) or the user info (`user:pass@`), and no
 * rule tells a secret path segment from a plain one (`/services/T…/B…/secret`, `/bot<token>/…`,
 * a topic name): so the user info, every path segment, the query and the fragment are left out,
 * always. The host stays, enough to tell the targets apart. The whole URL is only ever sent.
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
