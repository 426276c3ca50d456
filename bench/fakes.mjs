// Loopback fakes for the scenarios (plain-JS cut-downs of test/support/fake-telegram.ts and
// fake-open-ai.ts), run as a child process of their own so that their work does not delay the
// load generator. One HTTP server on 127.0.0.1:$PORT:
//
//   POST /receiver/<name>            webhook receiver: counts the deliveries per `data.seq` of the body
//   POST /bot<token>/<method>        Telegram Bot API: sendMessage, setMessageReaction, sendChatAction
//                                    (token must be $BOT_TOKEN); sendMessage texts "… #<n> …" are counted
//                                    per n and listed per chat in arrival order
//   POST /v1/chat/completions        OpenAI-compatible model: answers after $LLM_DELAY_MS (default 200)
//                                    "Reply to #<n>.", n taken from the last user message
//   GET  /__stats                    JSON of everything counted
import { createServer } from 'node:http';

const BOT_TOKEN = process.env.BOT_TOKEN ?? '';
const LLM_DELAY_MS = Number(process.env.LLM_DELAY_MS ?? 200);

const stats = {
  receiver: {}, // name -> { deliveries, bad, seqs: { n: count } }
  // replies: n -> sendMessage count; order: chat id -> the n of its replies, in arrival order
  telegram: { calls: {}, unauthorized: 0, replies: {}, order: {}, apologies: 0, unnumbered: 0, firstReplyAt: null, lastReplyAt: null },
  llm: { requests: 0, inFlight: 0, maxInFlight: 0, unnumbered: 0 },
};

const json = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
};
const numberIn = (text) => {
  const found = /#(\d+)/.exec(typeof text === 'string' ? text : '');
  return found ? Number(found[1]) : null;
};

const receiver = (name, body, res) => {
  const entry = (stats.receiver[name] ??= { deliveries: 0, bad: 0, seqs: {} });
  entry.deliveries++;
  const seq = body?.data?.seq;
  if (Number.isSafeInteger(seq)) entry.seqs[seq] = (entry.seqs[seq] ?? 0) + 1;
  else entry.bad++;
  json(res, 200, { received: true });
};

const telegram = (token, method, body, res) => {
  const calls = stats.telegram.calls;
  calls[method] = (calls[method] ?? 0) + 1;
  if (token !== BOT_TOKEN) {
    stats.telegram.unauthorized++;
    return json(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
  }
  switch (method) {
    case 'sendMessage': {
      const text = String(body.text ?? '');
      if (text.length === 0 || text.length > 4096)
        return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty or too long' });
      const n = numberIn(text);
      if (text.startsWith('Sorry,')) stats.telegram.apologies++;
      else if (n === null) stats.telegram.unnumbered++;
      else {
        stats.telegram.replies[n] = (stats.telegram.replies[n] ?? 0) + 1;
        (stats.telegram.order[body.chat_id] ??= []).push(n);
      }
      stats.telegram.firstReplyAt ??= Date.now();
      stats.telegram.lastReplyAt = Date.now();
      return json(res, 200, {
        ok: true,
        result: { message_id: calls[method], date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text },
      });
    }
    case 'sendChatAction':
    case 'setMessageReaction':
      return json(res, 200, { ok: true, result: true });
    default:
      return json(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
  }
};

const textOf = (content) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join(' ') : '';

const llm = (body, res) => {
  stats.llm.requests++;
  stats.llm.inFlight++;
  stats.llm.maxInFlight = Math.max(stats.llm.maxInFlight, stats.llm.inFlight);
  const lastUser = (body.messages ?? []).findLast((message) => message.role === 'user');
  const n = numberIn(textOf(lastUser?.content));
  if (n === null) stats.llm.unnumbered++;
  setTimeout(() => {
    stats.llm.inFlight--;
    json(res, 200, {
      id: `chatcmpl-${stats.llm.requests}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: `Reply to #${n ?? 'unknown'}.` }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  }, LLM_DELAY_MS);
};

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/__stats') return json(res, 200, stats);
    let body = {};
    try {
      body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return json(res, 400, { error: 'invalid JSON' });
    }
    if (req.method !== 'POST') return json(res, 404, { error: 'not found' });
    const hook = /^\/receiver\/([\w-]+)$/.exec(url);
    if (hook) return receiver(hook[1], body, res);
    const bot = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url);
    if (bot) return telegram(bot[1], bot[2], body, res);
    if (url.endsWith('/chat/completions')) return llm(body, res);
    return json(res, 404, { error: 'not found' });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'fakes listening', port: server.address().port })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
