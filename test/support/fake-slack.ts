import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { breakDownload, type FileBreak } from './broken-download.js';

export interface SlackCall {
  /** The Bearer token the call carried ('' without one). */
  readonly token: string;
  readonly method: string;
  readonly body: Record<string, unknown>;
}

/** A Web API answer to give instead of the normal one: HTTP status, `{ok: false, error}` body, and a Retry-After (seconds). */
export interface SlackFailure {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly retryAfter?: number;
}

export interface FakeSlack {
  /** Base URL to use as SLACK_API_URL (like `https://slack.com/api`). */
  readonly url: string;
  readonly calls: SlackCall[];
  /** Calls of one method, in order (failed ones included). */
  of(method: string): SlackCall[];
  /** Files served by files.info + download, by file id; `breaks` drops the download's connection (FileBreak). */
  readonly files: Map<string, { name: string; mimetype: string; data: Buffer; breaks?: FileBreak }>;
  /** The next answers of a method (then back to success). */
  failNext(method: string, answer: SlackFailure, times?: number): void;
  /** Tokens the fake accepts; any other gets `{ok: false, error: "invalid_auth"}` like the real API. */
  readonly validTokens: Set<string>;
  close(): Promise<void>;
}

/** Slack's limit for `chat.postMessage` text: longer text is truncated by Slack; the fake refuses it to make a missed split visible. */
const MAX_TEXT = 40_000;

/**
 * A loopback Slack Web API: `POST /api/<method>` with a Bearer token and a JSON body (or a form),
 * answering HTTP 200 `{ok: true, …}` or `{ok: false, error}` as Slack does, 429 with
 * `Retry-After` for rate limits. Knows `chat.postMessage`, `reactions.add` (`already_reacted`
 * for a second identical one), `auth.test` and `files.info`, and serves the files' private
 * download addresses (`/files-pri/<id>/<name>`, Bearer token required).
 */
export const startFakeSlack = async (validTokens: string[] = ['xoxb-test-token']): Promise<FakeSlack> => {
  const calls: SlackCall[] = [];
  const files = new Map<string, { name: string; mimetype: string; data: Buffer; breaks?: FileBreak }>();
  const failures = new Map<string, SlackFailure[]>();
  const tokens = new Set(validTokens);
  const reactions = new Set<string>();
  let ts = 1_700_000_000;
  let base = '';

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
      };
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const download = /^\/files-pri\/([^/]+)\/[^/]+$/.exec(req.url ?? '');
      if (download) {
        const found = files.get(download[1]);
        if (!tokens.has(token) || !found) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not found</html>');
        if (found.breaks !== undefined) return breakDownload(res, found.data, found.breaks);
        return void res.writeHead(200, { 'content-type': found.mimetype }).end(found.data);
      }
      const match = /^\/api\/([a-zA-Z.]+)$/.exec(req.url ?? '');
      if (!match || req.method !== 'POST') return reply(404, { ok: false, error: 'unknown_method' });
      const method = match[1];
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
          ? Object.fromEntries(new URLSearchParams(raw))
          : raw === ''
            ? {}
            : (JSON.parse(raw) as Record<string, unknown>);
      } catch {
        return reply(200, { ok: false, error: 'invalid_json' });
      }
      calls.push({ token, method, body });
      if (token === '') return reply(200, { ok: false, error: 'not_authed' });
      if (!tokens.has(token)) return reply(200, { ok: false, error: 'invalid_auth' });
      const queued = failures.get(method);
      if (queued && queued.length > 0) {
        const failure = queued.shift()!;
        return reply(failure.status, failure.body, failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) });
      }
      switch (method) {
        case 'auth.test':
          return reply(200, {
            ok: true,
            url: 'https://example.slack.com/',
            team: 'Example',
            user: 'gateway',
            team_id: 'T0001',
            user_id: 'U0BOT',
            bot_id: 'B0BOT',
          });
        case 'chat.postMessage': {
          const text = typeof body.text === 'string' ? body.text : '';
          if (typeof body.channel !== 'string' || body.channel === '') return reply(200, { ok: false, error: 'channel_not_found' });
          if (text === '') return reply(200, { ok: false, error: 'no_text' });
          if (text.length > MAX_TEXT) return reply(200, { ok: false, error: 'msg_too_long' });
          ts++;
          return reply(200, {
            ok: true,
            channel: body.channel,
            ts: `${ts}.000100`,
            message: { type: 'message', text, user: 'U0BOT', bot_id: 'B0BOT', ts: `${ts}.000100` },
          });
        }
        case 'chat.update': {
          if (typeof body.channel !== 'string' || typeof body.ts !== 'string') return reply(200, { ok: false, error: 'invalid_arguments' });
          if (typeof body.text !== 'string' || body.text === '') return reply(200, { ok: false, error: 'no_text' });
          return reply(200, { ok: true, channel: body.channel, ts: body.ts, text: body.text });
        }
        case 'reactions.add': {
          if (typeof body.channel !== 'string' || typeof body.timestamp !== 'string') return reply(200, { ok: false, error: 'invalid_arguments' });
          if (typeof body.name !== 'string' || !/^[a-z0-9_+-]+$/.test(body.name)) return reply(200, { ok: false, error: 'invalid_name' });
          const key = `${body.channel}/${body.timestamp}/${body.name}`;
          if (reactions.has(key)) return reply(200, { ok: false, error: 'already_reacted' });
          reactions.add(key);
          return reply(200, { ok: true });
        }
        case 'files.info': {
          const found = files.get(String(body.file ?? ''));
          if (!found) return reply(200, { ok: false, error: 'file_not_found' });
          const address = `${base}/files-pri/${String(body.file)}/${encodeURIComponent(found.name)}`;
          return reply(200, {
            ok: true,
            file: { id: body.file, name: found.name, mimetype: found.mimetype, size: found.data.length, url_private: address, url_private_download: address },
          });
        }
        default:
          return reply(200, { ok: false, error: 'unknown_method' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/api`,
    calls,
    of: (method) => calls.filter((call) => call.method === method),
    files,
    failNext: (method, answer, times = 1) => failures.set(method, [...(failures.get(method) ?? []), ...Array(times).fill(answer)]),
    validTokens: tokens,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
