import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { breakDownload, type FileBreak } from './broken-download.js';

export interface BotCall {
  readonly token: string;
  readonly method: string;
  readonly body: Record<string, unknown>;
}

export interface FakeTelegram {
  /** Base URL to use as MESSAGING_API_URL. */
  readonly url: string;
  readonly calls: BotCall[];
  /** Calls of one method, in order. */
  of(method: string): BotCall[];
  /** Files served by getFile + download, by file_id; `breaks` drops the download's connection (FileBreak). */
  readonly files: Map<string, { path: string; data: Buffer; breaks?: FileBreak }>;
  /**
   * The next answers of a method (then back to success); with `when`, of its next calls whose
   * body `when` accepts (a reply, not a job's notification sent meanwhile).
   */
  failNext(method: string, answer: { status: number; body: Record<string, unknown> }, times?: number, when?: (body: Record<string, unknown>) => boolean): void;
  /** Tokens the fake accepts; any other gets 401 Unauthorized like the real API. */
  readonly validTokens: Set<string>;
  /**
   * Queues an update for getUpdates (long polling), numbered after the last one when it has no
   * update_id; a waiting poll is answered at once. Returns its update_id.
   */
  pushUpdate(update: Record<string, unknown>): number;
  /** Updates queued and not yet confirmed by a getUpdates `offset` past them. */
  readonly pendingUpdates: ReadonlyArray<Record<string, unknown>>;
  /** getUpdates calls answered 409 (a webhook set, or a newer poll of another caller). */
  readonly pollConflicts: number;
  /** The webhook set now of the bot whose webhook was set or deleted last ('' after deleteWebhook). */
  readonly webhookUrl: string;
  close(): Promise<void>;
}

/** What Telegram shows of a message's text: in HTML mode without its tags, its entities decoded. */
const shownText = (text: string, html: boolean): string =>
  html ? text.replace(/<[^>]*>/g, '').replace(/&(lt|gt|quot|amp);/g, (_entity, name: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[name] ?? '') : text;

/**
 * A loopback Bot API: `POST /bot<token>/<method>` with JSON, answers `{ok, result}` or
 * `{ok: false, error_code, description, parameters?}` like Telegram, and serves
 * `/file/bot<token>/<path>`. `sendMessage` with parse_mode HTML is refused (400 "can't
 * parse entities") when the text holds an unknown tag, and any text that shows nothing (HTML
 * without visible text included) with 400 "message text is empty", as Telegram does. `getUpdates` is long
 * polling as Telegram has it: refused (409) while a webhook is set, `offset` confirms (drops)
 * every update before it, the answer waits up to `timeout` seconds for an update, and a newer
 * getUpdates ends a waiting one with 409 "terminated by other getUpdates request".
 */
export const startFakeTelegram = async (validTokens: string[] = ['123456:TEST-token']): Promise<FakeTelegram> => {
  const calls: BotCall[] = [];
  const files = new Map<string, { path: string; data: Buffer; breaks?: FileBreak }>();
  const failures = new Map<string, Array<{ status: number; body: Record<string, unknown>; when?: (body: Record<string, unknown>) => boolean }>>();
  const tokens = new Set(validTokens);
  // Each bot (token) has a webhook of its own, as on Telegram.
  const webhooks = new Map<string, { url: string; secret: string }>();
  const webhookOf = (token: string) => webhooks.get(token) ?? { url: '', secret: '' };
  let lastWebhookToken = '';
  let messageId = 1000;
  let pending: Array<Record<string, unknown>> = [];
  let lastUpdateId = 0;
  let pollConflicts = 0;
  /** The poll waiting for updates, if any: `answer` ends it (with the updates, or a conflict). */
  let waitingPoll: { answer: (conflict: boolean) => void } | undefined;

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const reply = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? '');
      if (file) {
        const found = [...files.values()].find((f) => f.path === file[2]);
        if (!tokens.has(file[1]) || !found) return reply(404, { ok: false, error_code: 404, description: 'Not Found' });
        if (found.breaks !== undefined) return breakDownload(res, found.data, found.breaks);
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(found.data);
        return;
      }
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? '');
      if (!match || req.method !== 'POST') return reply(404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, token, method] = match;
      let body: Record<string, unknown> = {};
      try {
        body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      } catch {
        return reply(400, { ok: false, error_code: 400, description: 'Bad Request: invalid JSON' });
      }
      calls.push({ token, method, body });
      if (!tokens.has(token)) return reply(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const queued = failures.get(method) ?? [];
      const due = queued.findIndex((failure) => failure.when === undefined || failure.when(body));
      if (due >= 0) {
        const [failure] = queued.splice(due, 1);
        return reply(failure.status, failure.body);
      }
      switch (method) {
        case 'setWebhook':
          if (typeof body.url !== 'string' || !body.url.startsWith('https://')) {
            return reply(400, { ok: false, error_code: 400, description: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook' });
          }
          webhooks.set(token, { url: body.url, secret: String(body.secret_token ?? '') });
          lastWebhookToken = token;
          return reply(200, { ok: true, result: true, description: 'Webhook was set' });
        case 'deleteWebhook':
          webhooks.delete(token);
          lastWebhookToken = token;
          if (body.drop_pending_updates === true) pending = [];
          return reply(200, { ok: true, result: true, description: 'Webhook was deleted' });
        case 'getUpdates': {
          if (webhookOf(token).url !== '') {
            pollConflicts++;
            return reply(409, {
              ok: false,
              error_code: 409,
              description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
            });
          }
          // A newer poll ends the one waiting.
          waitingPoll?.answer(true);
          const offset = typeof body.offset === 'number' ? body.offset : undefined;
          if (offset !== undefined) pending = pending.filter((update) => (update.update_id as number) >= offset);
          const timeoutMs = Math.max(0, Number(body.timeout ?? 0)) * 1000;
          const answer = (conflict: boolean): void => {
            clearTimeout(timer);
            if (waitingPoll === poll) waitingPoll = undefined;
            if (res.writableEnded) return;
            if (conflict) {
              pollConflicts++;
              reply(409, {
                ok: false,
                error_code: 409,
                description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
              });
              return;
            }
            reply(200, { ok: true, result: pending.slice(0, 100) });
          };
          const poll = { answer };
          const timer = setTimeout(() => answer(false), pending.length > 0 ? 0 : timeoutMs);
          if (pending.length === 0) {
            waitingPoll = poll;
            // The caller gave up (aborted): nothing to answer.
            res.once('close', () => {
              if (waitingPoll === poll) waitingPoll = undefined;
              clearTimeout(timer);
            });
          }
          return;
        }
        case 'getWebhookInfo':
          return reply(200, { ok: true, result: { url: webhookOf(token).url, has_custom_certificate: false, pending_update_count: 0, max_connections: 40 } });
        case 'sendMessage': {
          const text = String(body.text ?? '');
          if (text.length > 4096) return reply(400, { ok: false, error_code: 400, description: 'Bad Request: message is too long' });
          if (body.parse_mode === 'HTML' && /<(?!\/?(b|i|u|s|code|pre|a|tg-spoiler|blockquote)\b)[^>]*>/.test(text)) {
            return reply(400, { ok: false, error_code: 400, description: "Bad Request: can't parse entities: Unsupported start tag" });
          }
          // The text "1-4096 characters after entity parsing": what shows of it (tags taken off,
          // surrounding white space trimmed) must not be empty (`<pre></pre>` is).
          if (shownText(text, body.parse_mode === 'HTML').trim() === '')
            return reply(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
          messageId++;
          return reply(200, {
            ok: true,
            result: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text },
          });
        }
        case 'sendChatAction':
        case 'setMessageReaction':
          return reply(200, { ok: true, result: true });
        case 'answerCallbackQuery':
          if (typeof body.callback_query_id !== 'string')
            return reply(400, { ok: false, error_code: 400, description: 'Bad Request: query is too old or query ID is invalid' });
          return reply(200, { ok: true, result: true });
        case 'editMessageReplyMarkup':
          if (typeof body.message_id !== 'number') return reply(400, { ok: false, error_code: 400, description: 'Bad Request: message to edit not found' });
          return reply(200, { ok: true, result: true });
        case 'getFile': {
          const found = files.get(String(body.file_id));
          if (!found) return reply(400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
          return reply(200, {
            ok: true,
            result: { file_id: body.file_id, file_unique_id: `u-${body.file_id}`, file_size: found.data.length, file_path: found.path },
          });
        }
        default:
          return reply(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    of: (method) => calls.filter((call) => call.method === method),
    files,
    failNext: (method, answer, times = 1, when) =>
      failures.set(method, [...(failures.get(method) ?? []), ...Array.from({ length: times }, () => ({ ...answer, ...(when && { when }) }))]),
    validTokens: tokens,
    pushUpdate: (update) => {
      const id = typeof update.update_id === 'number' ? update.update_id : lastUpdateId + 1;
      lastUpdateId = Math.max(lastUpdateId, id);
      pending.push({ ...update, update_id: id });
      waitingPoll?.answer(false);
      return id;
    },
    get pendingUpdates() {
      return pending;
    },
    get pollConflicts() {
      return pollConflicts;
    },
    get webhookUrl() {
      return webhookOf(lastWebhookToken).url;
    },
    close: () => {
      waitingPoll?.answer(false);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
