// Reference servers the gateway is compared against (bench/run.mjs), on 127.0.0.1:$PORT,
// answering GETs with {"message":"Pong!"}:
//   MODE=bare (default)  bare node:http — the ceiling of the % column;
//   MODE=koa-router      Koa with @koa/router and nothing else — what the framework the
//                        design prescribes costs before any code of ours runs; it also takes
//                        POST /api/webhook, reading and JSON-parsing the body by hand and
//                        answering {"ok":true,"triggers":[]} (the ceiling for bench/triggers.mjs).
import { createServer } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';

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
const server = createServer(process.env.MODE === 'koa-router' ? koaRouter() : bare);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'baseline listening', port: server.address().port })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
