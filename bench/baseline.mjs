// Reference servers the gateway is compared against, on 127.0.0.1:$PORT:
//   MODE=bare (default)  bare node:http answering GETs with {"message":"Pong!"} — the ceiling of
//                        bench/run.mjs's % column;
//   MODE=koa-router      Koa with @koa/router and nothing else (GET /api/ping; POST /api/webhook
//                        reading and JSON-parsing the body by hand) — the framework alone;
//   MODE=reference       the reference app of issue 15.4 (bench/framework.mjs): koa + @koa/router
//                        + koa-bodyparser + an API-key check by SHA-256 hash lookup in an in-memory
//                        Map, no code of the gateway. It serves the same three requests the
//                        gateway is measured on: GET /api/ping, an authenticated POST
//                        /api/create-job with an invalid body (400 {"error":"Missing job field"})
//                        and an authenticated POST /api/webhook with no trigger (200
//                        {"ok":true,"triggers":[]}). API_KEYS (comma-separated) are the valid keys.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';

const body = JSON.stringify({ message: 'Pong!' });
const bare = (req, res) => {
  if (req.method !== 'GET') {
    res.writeHead(405).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const koaRouter = () => {
  const app = new Koa();
  const router = new Router();
  router.get('/api/ping', (ctx) => {
    ctx.body = { message: 'Pong!' };
  });
  router.post('/api/webhook', async (ctx) => {
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    ctx.request.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    ctx.body = { ok: true, triggers: [] };
  });
  app.use(router.routes());
  return app.callback();
};
const reference = () => {
  const sha256 = (text) => createHash('sha256').update(text).digest('hex');
  const keys = new Map(
    (process.env.API_KEYS ?? '')
      .split(',')
      .filter(Boolean)
      .map((key, i) => [sha256(key), { id: i + 1, name: `key-${i + 1}` }]),
  );
  const authenticated = async (ctx, next) => {
    const key = ctx.get('x-api-key');
    const found = key ? keys.get(sha256(key)) : undefined;
    if (found === undefined) {
      ctx.status = 401;
      ctx.body = { error: 'Invalid API key' };
      return;
    }
    ctx.state.apiKey = found;
    await next();
  };
  const json = bodyParser({ enableTypes: ['json'] });
  const app = new Koa();
  const router = new Router({ prefix: '/api' });
  router.get('/ping', (ctx) => {
    ctx.body = { message: 'Pong!' };
  });
  router.post('/create-job', authenticated, json, (ctx) => {
    const job = ctx.request.body?.job;
    if (typeof job !== 'string' || job === '') {
      ctx.status = 400;
      ctx.body = { error: 'Missing job field' };
      return;
    }
    ctx.status = 201;
    ctx.body = { id: 1 };
  });
  router.post('/webhook', authenticated, json, (ctx) => {
    ctx.body = { ok: true, triggers: [] };
  });
  app.use(router.routes());
  return app.callback();
};
const MODES = { bare: () => bare, 'koa-router': koaRouter, reference };
const make = MODES[process.env.MODE ?? 'bare'];
if (!make) throw new Error(`MODE: unknown "${process.env.MODE}" (known: ${Object.keys(MODES).join(', ')})`);
const server = createServer(make());
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'baseline listening', port: server.address().port })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
