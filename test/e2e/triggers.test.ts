import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT, runCli, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey as createKeyNamed, queuesDrained, waitFor, runningServerAdmin } from '../support/http.js';

/*
 * End-to-end: the BUILT server (`node dist/main.js`, see test/support/gateway-process.ts) with a
 * trigger file in a temporary directory, driven over HTTP. Outcomes are checked the way a user
 * notices them: response bodies, files written by command actions in TRIGGERS_DIR, requests
 * arriving at a loopback receiver.
 */

// ---------------------------------------------------------------------------------------------
// helpers

const createKey = (env: Record<string, string>): Promise<string> => createKeyNamed(env, 't');

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

interface Receiver {
  readonly url: string;
  readonly requests: Received[];
  close(): Promise<void>;
}

/** A loopback HTTP server recording every request it gets; answers 200 `{}`. */
const startReceiver = async (): Promise<Receiver> => {
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};

const readText = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** Every file name under `dir`, recursively. */
const listFiles = async (dir: string): Promise<string[]> => {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
};

interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
  readonly ms: number;
}

const send = async (url: string, init: RequestInit): Promise<JsonResponse> => {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the failure message
  }
  return { status: response.status, body, ms };
};

const sign = (secret: string, raw: string): string => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/**
 * The first lines of a command template: act only when the body names an existing run directory, and work in it. The
 * check refuses a token as cd's directory (a value could name any directory), so the run directory is chosen among
 * those there by comparing each with the value.
 */
const gate = (field: string): string => `for d in */; do [ "$d" = {{body.${field}}}/ ] && break; d=; done; [ -n "$d" ] || exit 0; cd -- "$d" || exit 0; `;

// ---------------------------------------------------------------------------------------------

describe('e2e: triggers on the built server', function () {
  this.timeout(60_000);

  describe('one gateway, one trigger file with several triggers', () => {
    const SECRET = 'codehost-secret-for-e2e';
    let receiver: Receiver;
    let dir: string;
    let dataDir: string;
    let triggersFile: string;
    let gateway: GatewayProcess | undefined;
    let key: string;

    /** Enabled /webhook triggers, in file order (the disabled one sits between them). */
    const WEBHOOK_TRIGGERS = ['slow', 'render', 'order', 'forward-post', 'forward-get', 'marker', 'inject', 'env'];
    /** Service secrets in the gateway's environment: no command may see them. */
    const METRICS_TOKEN = 'e2e-metrics-token';
    const SERVICE_SECRETS: Record<string, string> = {
      CODEHOST_WEBHOOK_SECRET: SECRET,
      MESSAGING_BOT_TOKEN: '123456:e2e-messaging-bot-token',
      MESSAGING_WEBHOOK_SECRET: 'e2e-messaging-webhook-secret',
      ANTHROPIC_API_KEY: 'e2e-anthropic-api-key',
      METRICS_TOKEN,
    };

    const webhook = (body: unknown, options: { key?: string | null; headers?: Record<string, string>; query?: string } = {}): Promise<JsonResponse> => {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
      const useKey = options.key === undefined ? key : options.key;
      if (useKey !== null) headers['x-api-key'] = useKey;
      return send(`${gateway!.url}/api/webhook${options.query ?? ''}`, { method: 'POST', headers, body: JSON.stringify(body) });
    };

    const codehost = (raw: string, headers: Record<string, string>): Promise<JsonResponse> =>
      send(`${gateway!.url}/api/codehost/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });

    before(async () => {
      receiver = await startReceiver();
      dir = await tempDir('e2e-triggers-dir');
      dataDir = await migratedDataDir('e2e-triggers-data');
      triggersFile = join(await tempDir('e2e-triggers-file'), 'TRIGGERS.json');
      const render =
        gate('render') +
        [
          "printf '%s' {{body.a.b}} > ab.txt",
          "printf '%s' {{body.items.0.id}} > item0.txt",
          "printf '%s' {{body.items.1.id}} > item1.txt",
          "printf '%s' {{body.n}} > n.txt",
          "printf '%s' {{query.q}} > q.txt",
          "printf '%s' {{query}} > query.json",
          "printf '%s' {{headers.X-Thing}} > hdr.txt",
          "printf '%s' {{headers}} > headers.json",
          "printf '%s' {{body}} > body.json",
          "printf '%s' {{body.a.nope}} > missing-body.txt",
          "printf '%s' {{query.nope}} > missing-query.txt",
          "printf '%s' {{headers.x-nope}} > missing-header.txt",
          'echo ok > done.txt',
        ].join('; ');
      const inject = `${gate('inject')}
# values reach the command as variables: nothing they hold is shell syntax, in any of these places
${[
  "printf '%s' {{body.v}} > b-unquoted.txt",
  "printf '%s' '{{body.v}}' > b-single.txt",
  'printf \'%s\' "{{body.v}}" > b-double.txt',
  "printf '%s' x{{query.v}}y > q-unquoted.txt",
  "printf '%s' 'x{{query.v}}y' > q-single.txt",
  'printf \'%s\' "x{{query.v}}y" > q-double.txt',
  "printf '%s' {{headers.x-v}} > h-unquoted.txt",
  "printf '%s' 'x {{headers.x-v}} y' > h-single.txt",
  'printf \'%s\' "x {{headers.x-v}} y" > h-double.txt',
  'printf \'%s\' "$(printf \'%s\' "<{{body.v}}>")" > b-substitution.txt',
  "x=`printf '%s' '<{{query.v}}>'`; printf '%s' \"$x\" > q-backticks.txt",
  "printf '%s' {{body.v}} | cat > b-pipe.txt && (printf '%s' \"<{{headers.x-v}}>\") > h-subshell.txt",
  'n=$((2 * 3)); printf \'%s\' "$n{{query.v}}" > q-arithmetic.txt',
  'set -- {{body.v}}; printf \'%s\' "$1" > b-set.txt',
].join('\n')}
cat > b-heredoc.txt <<EOF
<{{body.v}}> <{{query.v}}> <{{headers.x-v}}>
EOF
echo ok > done.txt`;
      const triggers = [
        {
          name: 'slow',
          watch_path: '/webhook',
          enabled: true,
          // Held until the test has its answer and lets it go (the file `proceed`; 30 s at most): an
          // answer that waited for its actions would never come, where a fixed `sleep 3` only made
          // it late, and every run of the test waited those 3 s.
          actions: [
            {
              type: 'command',
              command: `${gate('slow')}i=0; until [ -e proceed ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done; echo done > slow.txt`,
            },
          ],
        },
        { name: 'render', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: render }] },
        { name: 'disabled', watch_path: '/webhook', enabled: false, actions: [{ type: 'command', command: 'touch DISABLED_TRIGGER_RAN' }] },
        {
          name: 'order',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            { type: 'command', command: `${gate('order')}sleep 1; echo one >> order.txt; exit 3` },
            { type: 'command', command: `${gate('order')}echo two >> order.txt` },
          ],
        },
        {
          name: 'forward-post',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            {
              type: 'webhook',
              url: `${receiver.url}/post-hook?from=gateway`,
              method: 'POST',
              headers: { 'X-Custom': 'custom-value', Authorization: 'Bearer outbound-token' },
              vars: { source: 'agent-gateway', count: 2, nested: { k: 'v' } },
            },
          ],
        },
        {
          name: 'forward-get',
          watch_path: '/webhook',
          enabled: true,
          actions: [{ type: 'webhook', url: `${receiver.url}/get-hook`, method: 'GET', headers: { 'X-Get-Header': 'get-value' }, vars: { ignored: true } }],
        },
        { name: 'marker', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: `${gate('marker')}touch "marker-$$"` }] },
        { name: 'inject', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: inject }] },
        { name: 'env', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: `${gate('env')}env > env.txt` }] },
        {
          name: 'once',
          watch_path: '/jobs/status',
          enabled: true,
          actions: [
            { type: 'command', command: "echo nul >> once-runs.txt; printf 'before\\0after'" },
            { type: 'command', command: "echo emoji >> once-runs.txt; printf '%4095s🎉%20000s' '' '' | tr ' ' a" },
          ],
        },
        {
          name: 'codehost',
          watch_path: '/codehost/webhook',
          enabled: true,
          actions: [{ type: 'command', command: 'echo {{body.run}} {{headers.x-github-event}} sig={{headers.x-hub-signature-256}} >> codehost.txt' }],
        },
      ];
      await writeFile(triggersFile, JSON.stringify(triggers, null, 2));
      gateway = await startGateway({
        DATA_DIR: dataDir,
        TRIGGERS_FILE: triggersFile,
        TRIGGERS_DIR: dir,
        ...SERVICE_SECRETS,
        COMMAND_ENV: 'AGW_E2E_VISIBLE',
        AGW_E2E_VISIBLE: 'visible-to-commands',
        AGW_E2E_HIDDEN: 'hidden-from-commands',
        WEBHOOK_ATTEMPTS: '1',
        WEBHOOK_BACKOFF_MS: '0',
        QUEUE_CONCURRENCY: '16',
      });
      key = await createKey(gateway.env);
    });

    after(async () => {
      await gateway?.stop();
      await receiver?.close();
    });

    it('answers POST /api/webhook at once with the enabled /webhook triggers in file order, before a slow action finishes', async () => {
      await mkdir(join(dir, 'ff'));
      const response = await webhook({ slow: 'ff' });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });
      // answered before the slow action finished: its file was not there yet
      expect(existsSync(join(dir, 'ff', 'slow.txt')), 'slow.txt already there when the answer arrived').to.equal(false);
      // Only now may the slow action finish.
      await writeFile(join(dir, 'ff', 'proceed'), '');
      // The shell creates the file when it opens it for the redirect, and writes `done` after: wait for the content.
      await waitFor(
        async () => existsSync(join(dir, 'ff', 'slow.txt')) && (await readText(join(dir, 'ff', 'slow.txt'))) === 'done\n',
        15_000,
        'ff/slow.txt with done',
      );
      expect(await readText(join(dir, 'ff', 'slow.txt'))).to.equal('done\n');
    });

    it('renders body paths, array indexes, query, headers (any case), the whole body, and missing fields as empty', async () => {
      await mkdir(join(dir, 'r1'));
      const body = { render: 'r1', a: { b: 'nested value' }, items: [{ id: 'first-id' }, { id: 2 }], n: 42, quote: 'it\'s "x"' };
      const response = await webhook(body, { query: '?q=hello%20world', headers: { 'X-THING': 'Header Value' } });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });
      await waitFor(() => existsSync(join(dir, 'r1', 'done.txt')), 15_000, 'r1/done.txt');
      const file = (name: string): Promise<string | undefined> => readText(join(dir, 'r1', name));
      expect(await file('ab.txt')).to.equal('nested value');
      expect(await file('item0.txt')).to.equal('first-id');
      expect(await file('item1.txt')).to.equal('2');
      expect(await file('n.txt')).to.equal('42');
      expect(await file('q.txt')).to.equal('hello world');
      expect(JSON.parse((await file('query.json'))!)).to.deep.equal({ q: 'hello world' });
      expect(await file('hdr.txt')).to.equal('Header Value');
      // the body's JSON exactly, key order included (the request is stored once, as text)
      expect(await file('body.json')).to.equal(JSON.stringify(body));
      expect(await file('missing-body.txt')).to.equal('');
      expect(await file('missing-query.txt')).to.equal('');
      expect(await file('missing-header.txt')).to.equal('');
      const headers = JSON.parse((await file('headers.json'))!) as Record<string, string>;
      expect(headers['x-thing']).to.equal('Header Value');
      expect(headers).to.not.have.property('x-api-key');
    });

    it('runs the actions of one trigger in order, each after the previous one finished, also after a failure', async () => {
      await mkdir(join(dir, 'o1'));
      const response = await webhook({ order: 'o1' });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });
      await waitFor(async () => (await readText(join(dir, 'o1', 'order.txt')))?.includes('two'), 15_000, 'o1/order.txt with "two"');
      await queuesDrained(gateway!.url, METRICS_TOKEN);
      expect(await readText(join(dir, 'o1', 'order.txt'))).to.equal('one\ntwo\n');
    });

    it("forwards POST {...vars, data: body} with only the action's headers, and GET with no body and no content-type", async () => {
      const since = Date.now();
      const body = { fwd: 'f1', list: [1, 'two', { three: 3 }], flag: true, nothing: null };
      const response = await webhook(body, { headers: { 'x-caller-secret': 'caller-secret-value', 'x-request-id': 'caller-req-1' } });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });

      const post = await waitFor(() => receiver.requests.find((r) => r.method === 'POST' && r.body.includes('"fwd":"f1"')), 15_000, 'the POST webhook action');
      expect(post.url).to.equal('/post-hook?from=gateway');
      expect(JSON.parse(post.body)).to.deep.equal({ source: 'agent-gateway', count: 2, nested: { k: 'v' }, data: body });
      expect(post.headers['x-custom']).to.equal('custom-value');
      expect(post.headers.authorization).to.equal('Bearer outbound-token');
      expect(post.headers['content-type']).to.equal('application/json');
      expect(post.headers).to.not.have.property('x-caller-secret');
      expect(post.headers).to.not.have.property('x-api-key');
      expect(post.headers).to.not.have.property('x-request-id');
      const TRANSPORT = ['host', 'connection', 'content-length', 'accept', 'accept-encoding', 'user-agent', 'content-type'];
      expect(
        Object.keys(post.headers)
          .filter((h) => !TRANSPORT.includes(h))
          .sort(),
      ).to.deep.equal(['authorization', 'x-custom']);
      expect(JSON.stringify(post.headers)).to.not.contain(key).and.to.not.contain('caller-secret-value');

      const get = await waitFor(() => receiver.requests.find((r) => r.method === 'GET' && r.at >= since), 15_000, 'the GET webhook action');
      expect(get.url).to.equal('/get-hook');
      expect(get.body).to.equal('');
      expect(get.headers).to.not.have.property('content-type');
      expect(get.headers['x-get-header']).to.equal('get-value');
      expect(Object.keys(get.headers).filter((h) => !TRANSPORT.includes(h))).to.deep.equal(['x-get-header']);
      // every GET that arrived so far had no body and no content-type
      for (const r of receiver.requests.filter((x) => x.method === 'GET')) {
        expect(r.body).to.equal('');
        expect(r.headers).to.not.have.property('content-type');
      }
    });

    it('runs nothing for an unauthorized request (no key, bad key, empty key): 401 {error:"Unauthorized"}', async () => {
      await mkdir(join(dir, 'm1'));
      const badKey = `agw_${'A'.repeat(43)}`;
      for (const k of [null, badKey, '', `${key}x`, key.slice(0, -1)]) {
        const refused = await webhook({ marker: 'm1' }, { key: k });
        expect(refused.status, `key ${JSON.stringify(k)}`).to.equal(401);
        expect(refused.body).to.deep.equal({ error: 'Unauthorized' });
      }
      const accepted = await webhook({ marker: 'm1' });
      expect(accepted.status).to.equal(200);
      expect(accepted.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });
      await waitFor(async () => (await readdir(join(dir, 'm1'))).some((f) => f.startsWith('marker-')), 15_000, 'a marker in m1');
      await queuesDrained(gateway!.url, METRICS_TOKEN);
      const markers = (await readdir(join(dir, 'm1'))).filter((f) => f.startsWith('marker-'));
      expect(markers, 'one marker per authorized request, none for the 5 refused ones').to.have.length(1);
    });

    it('never runs a disabled trigger', async () => {
      await mkdir(join(dir, 'd1'));
      const response = await webhook({ marker: 'd1', render: 'd1' });
      expect(response.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });
      await waitFor(() => existsSync(join(dir, 'd1', 'done.txt')), 15_000, 'd1/done.txt');
      await waitFor(async () => (await readdir(join(dir, 'd1'))).some((f) => f.startsWith('marker-')), 15_000, 'a marker in d1');
      await queuesDrained(gateway!.url, METRICS_TOKEN);
      const all = await listFiles(dir);
      expect(
        all.filter((f) => f.includes('DISABLED_TRIGGER_RAN')),
        'files written by the disabled trigger',
      ).to.deep.equal([]);
    });

    it('passes hostile values from body, query and headers to the command byte for byte, in every shell construct, running none of them', async function () {
      this.timeout(45_000);
      const values = [
        '$(touch pwned1)',
        '`touch pwned2`',
        "'; touch pwned3; '",
        '"; touch pwned4; "',
        'a\ntouch pwned5',
        "\\'; touch pwned6; echo \\'",
        '\\"; touch pwned7; echo \\',
        '$HOME ${PATH} * ? | touch pwned8 && touch pwned9 # ;',
        'x\' "$(touch pwned10)" \'',
        'EOF\ntouch pwned11\nEOF',
        'x # y\ntouch pwned12',
        'a[$(touch pwned13)]',
        '-n',
        '*',
        'ünïcödé 中文 🎉👍🏽',
        '\\',
      ];
      const expectations: Array<{ run: string; value: string; headerValue: string }> = [];
      for (const [i, value] of values.entries()) {
        const run = `inj${i}`;
        await mkdir(join(dir, run));
        // a header carries no line break, and HTTP header values are bytes, not UTF-8 text
        const headerValue = /[^\x20-\x7e]/.test(value) ? '' : value;
        const headers: Record<string, string> = headerValue === '' ? {} : { 'X-V': headerValue };
        const response = await webhook({ inject: run, v: value }, { query: `?${new URLSearchParams({ v: value }).toString()}`, headers });
        expect(response.status, `request ${i}`).to.equal(200);
        expect(response.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });
        expectations.push({ run, value, headerValue });
      }
      for (const { run, value, headerValue } of expectations) {
        await waitFor(() => existsSync(join(dir, run, 'done.txt')), 15_000, `${run}/done.txt`);
        const file = (name: string): Promise<string | undefined> => readText(join(dir, run, name));
        const where = `value ${JSON.stringify(value)}`;
        expect(await file('b-unquoted.txt'), where).to.equal(value);
        expect(await file('b-single.txt'), where).to.equal(value);
        expect(await file('b-double.txt'), where).to.equal(value);
        expect(await file('q-unquoted.txt'), where).to.equal(`x${value}y`);
        expect(await file('q-single.txt'), where).to.equal(`x${value}y`);
        expect(await file('q-double.txt'), where).to.equal(`x${value}y`);
        expect(await file('h-unquoted.txt'), where).to.equal(headerValue);
        expect(await file('h-single.txt'), where).to.equal(`x ${headerValue} y`);
        expect(await file('h-double.txt'), where).to.equal(`x ${headerValue} y`);
        expect(await file('b-substitution.txt'), where).to.equal(`<${value}>`);
        expect(await file('q-backticks.txt'), where).to.equal(`<${value}>`);
        expect(await file('b-pipe.txt'), where).to.equal(value);
        expect(await file('h-subshell.txt'), where).to.equal(`<${headerValue}>`);
        expect(await file('q-arithmetic.txt'), where).to.equal(`6${value}`);
        expect(await file('b-set.txt'), where).to.equal(value);
        expect(await file('b-heredoc.txt'), where).to.equal(`<${value}> <${value}> <${headerValue}>\n`);
      }
      const pwned = [...(await listFiles(dir)), ...(await readdir(ROOT))].filter((f) => /pwned/.test(f));
      expect(pwned, 'files created by injected commands').to.deep.equal([]);
    });

    it('accepts a JSON body or query holding a NUL character: fires the triggers, the command gets the value without the NUL', async () => {
      // SPEC 4.6: a JSON body of any shape; docs/triggers.md: "NUL bytes are dropped".
      await mkdir(join(dir, 'nul-body'));
      await mkdir(join(dir, 'nul-query'));
      const inBody = await webhook({ render: 'nul-body', a: { b: 'before\u0000after' } });
      const inQuery = await webhook({ render: 'nul-query' }, { query: '?q=x%00y' });
      expect({ body: [inBody.status, inBody.body], query: [inQuery.status, inQuery.body] }, 'answers to a NUL in the body and in the query').to.deep.equal({
        body: [200, { ok: true, triggers: WEBHOOK_TRIGGERS }],
        query: [200, { ok: true, triggers: WEBHOOK_TRIGGERS }],
      });
      await waitFor(() => existsSync(join(dir, 'nul-body', 'done.txt')) && existsSync(join(dir, 'nul-query', 'done.txt')), 15_000, 'nul-*/done.txt');
      expect(await readText(join(dir, 'nul-body', 'ab.txt'))).to.equal('beforeafter');
      expect(await readText(join(dir, 'nul-query', 'q.txt'))).to.equal('xy');
    });

    it('gives commands no service secret, only PATH, HOME, LANG, TZ, their values and the variables COMMAND_ENV names', async () => {
      await mkdir(join(dir, 'env1'));
      const response = await webhook({ env: 'env1' });
      expect(response.body).to.deep.equal({ ok: true, triggers: WEBHOOK_TRIGGERS });
      const env = await waitFor(() => readText(join(dir, 'env1', 'env.txt')), 15_000, 'env1/env.txt');
      for (const [name, value] of Object.entries(SERVICE_SECRETS)) {
        expect(env, name).to.not.contain(`${name}=`);
        expect(env, name).to.not.contain(value);
      }
      expect(env).to.not.contain(key);
      expect(env).to.not.contain('AGW_E2E_HIDDEN').and.to.not.contain('DATA_DIR=').and.to.not.contain('TRIGGERS_FILE=');
      expect(env).to.contain('AGW_E2E_VISIBLE=visible-to-commands\n');
      expect(env).to.contain('AGW_ARG_1=env1\n');
    });

    it('runs a command whose output the database cannot store as it is (a NUL; output over 16 KiB whose kept beginning ends inside an emoji) once, and records it', async () => {
      const status = await send(`${gateway!.url}/api/jobs/status`, { method: 'GET', headers: { 'x-api-key': key } });
      expect(status.status).to.equal(200);
      const logged = (): Array<Record<string, unknown>> =>
        gateway!.logs.filter(
          (l): l is Record<string, unknown> => typeof l === 'object' && l.trigger === 'once' && typeof l.msg === 'string' && l.msg.startsWith('trigger action'),
        );
      // each action is logged after its record was saved (or after its failure to save was logged)
      await waitFor(() => logged().length >= 2, 15_000, 'both actions of the "once" trigger logged');
      expect(logged().map((l) => [l.action, l.msg, l.status])).to.deep.equal([
        [0, 'trigger action finished', 'succeeded'],
        [1, 'trigger action finished', 'succeeded'],
      ]);
      expect(await readText(join(dir, 'once-runs.txt'))).to.equal('nul\nemoji\n');
      const errors = gateway!.logs.filter((l) => typeof l === 'object' && l.trigger === 'once' && (l.level as number) >= 50);
      expect(errors, 'error log lines of the trigger').to.deep.equal([]);
    });

    describe('code-host webhook (CODEHOST_WEBHOOK_SECRET set)', () => {
      const push = (run: string, delivery: string, signature?: string): Promise<JsonResponse> => {
        const raw = JSON.stringify({ run, ref: 'refs/heads/main', commits: [] });
        const headers: Record<string, string> = { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': delivery };
        if (signature !== undefined) headers['X-Hub-Signature-256'] = signature === 'valid' ? sign(SECRET, raw) : signature;
        return codehost(raw, headers);
      };
      const lines = async (): Promise<string[]> => ((await readText(join(dir, 'codehost.txt'))) ?? '').split('\n').filter(Boolean);

      it('refuses a forged or missing signature with 401 and runs nothing; runs a valid delivery once; acknowledges a redelivery and ping without running', async () => {
        // forged: the right scheme but another secret; a valid signature of another body; garbage; missing
        const forgedRaw = JSON.stringify({ run: 'forged', ref: 'refs/heads/main' });
        const refusals = [
          await push('forged', randomUUID(), sign('not-the-secret', forgedRaw)),
          await push('forged', randomUUID(), sign(SECRET, JSON.stringify({ run: 'other' }))),
          await push('forged', randomUUID(), 'sha256=00'),
          await push('forged', randomUUID(), sign(SECRET, forgedRaw).replace('sha256=', 'sha1=')),
          await push('missing', randomUUID()),
        ];
        for (const refused of refusals) {
          expect(refused.status).to.equal(401);
          expect(refused.body).to.deep.equal({ error: 'Unauthorized' });
        }

        const delivery = randomUUID();
        const first = await push('valid', delivery, 'valid');
        expect(first.status).to.equal(200);
        expect(first.body).to.deep.equal({ ok: true, triggers: ['codehost'] });
        await waitFor(async () => (await lines()).length >= 1, 15_000, 'codehost.txt');
        expect(await lines()).to.deep.equal(['valid push sig=']);

        const again = await push('valid', delivery, 'valid');
        expect(again.status).to.equal(200);
        expect(again.body).to.deep.equal({ ok: true, triggers: [], duplicate: true });

        const pingRaw = JSON.stringify({ run: 'ping', zen: 'Keep it logically awesome.', hook_id: 1, hook: {} });
        const ping = await codehost(pingRaw, { 'X-GitHub-Event': 'ping', 'X-GitHub-Delivery': randomUUID(), 'X-Hub-Signature-256': sign(SECRET, pingRaw) });
        expect(ping.status).to.equal(200);
        expect(ping.body).to.deep.equal({ ok: true, triggers: [] });

        // a last valid delivery as a barrier: once it has run, anything queued before it has run too
        const barrier = await push('barrier', randomUUID(), 'valid');
        expect(barrier.body).to.deep.equal({ ok: true, triggers: ['codehost'] });
        await waitFor(async () => (await lines()).some((l) => l.startsWith('barrier')), 15_000, 'the barrier delivery');
        await queuesDrained(gateway!.url, METRICS_TOKEN);
        expect(await lines()).to.deep.equal(['valid push sig=', 'barrier push sig=']);
      });
    });
  });

  describe('durability across a hard kill (SIGKILL), and a server without CODEHOST_WEBHOOK_SECRET', () => {
    let dir: string;
    let dataDir: string;
    let triggersFile: string;
    let first: GatewayProcess | undefined;
    let second: GatewayProcess | undefined;

    before(async () => {
      dir = await tempDir('e2e-durable-dir');
      dataDir = await migratedDataDir('e2e-durable-data');
      triggersFile = join(await tempDir('e2e-durable-file'), 'TRIGGERS.json');
      // No template tokens. A command notes the gateway that started it (the pid in DATA_DIR's
      // lock file when it starts), then waits until the test lets commands go on (the file
      // `proceed`, written once the first gateway is killed; at most a minute, should the test
      // fail before); one whose gateway died by then writes nothing, as if the machine had
      // crashed: every line comes from a live gateway.
      const triggers = [
        {
          name: 'durable',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            {
              type: 'command',
              command: `touch "started-$$"; gateway=$(head -n 1 '${join(dataDir, 'embedded.pid')}'); i=0; until [ -e '${join(dir, 'proceed')}' ] || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done; kill -0 "$gateway" 2>/dev/null || exit 9; echo "$gateway $(date +%s%N)" >> durable.txt`,
            },
          ],
        },
        { name: 'codehost-without-secret', watch_path: '/codehost/webhook', enabled: true, actions: [{ type: 'command', command: 'touch CODEHOST_RAN' }] },
      ];
      await writeFile(triggersFile, JSON.stringify(triggers, null, 2));
    });

    after(async () => {
      await first?.kill();
      // Commands still waiting (the test failed before it let them go on) end now.
      if (dir !== undefined) await writeFile(join(dir, 'proceed'), '');
      await second?.stop();
    });

    // Line 1 of the lock file is the holder's pid.
    const pidOf = async (): Promise<number> => Number((await readFile(join(dataDir, 'embedded.pid'), 'utf8')).split('\n')[0]);
    const durableLines = async (): Promise<string[]> => ((await readText(join(dir, 'durable.txt'))) ?? '').split('\n').filter(Boolean);

    it('runs every task answered before the kill after a restart on the same DATA_DIR', async function () {
      this.timeout(90_000);
      const env = { DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile, TRIGGERS_DIR: dir };
      // One queue worker: it takes at most 10 tasks at once, so some of the N wait in the queue at the kill.
      first = await startGateway({ ...env, QUEUE_CONCURRENCY: '1' });
      const key = await createKey(first.env);
      const firstPid = await pidOf();

      // no secret configured: a correctly signed delivery is refused and runs nothing
      const raw = JSON.stringify({ ref: 'refs/heads/main' });
      const refused = await send(`${first.url}/api/codehost/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-GitHub-Event': 'push',
          'X-GitHub-Delivery': randomUUID(),
          'X-Hub-Signature-256': sign('any-secret', raw),
        },
        body: raw,
      });
      expect(refused.status).to.equal(401);
      expect(refused.body).to.deep.equal({ error: 'Unauthorized' });

      const N = 14;
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          send(`${first!.url}/api/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ i }) }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).to.equal(200);
        expect(answer.body).to.deep.equal({ ok: true, triggers: ['durable'] });
      }
      // kill while actions run: the tasks are taken (active in the queue), not merely stored
      const started = async (): Promise<number> => (await readdir(dir)).filter((f) => f.startsWith('started-')).length;
      await waitFor(async () => (await started()) >= 1, 15_000, 'a running action');
      // The others start with it (one batch) or stay queued; none is done, however long the kill
      // takes: every command waits for `proceed`, written only after the kill.
      await first.kill();
      const killedAt = Date.now();
      first = undefined;
      // Counted once the process is gone: no action of the first gateway starts any more.
      const startedAtKill = await started();
      expect(await durableLines(), 'lines written before the kill').to.deep.equal([]);
      // The commands of the killed gateway go on now, find it gone and write nothing; those of
      // the restarted one go on at once.
      await writeFile(join(dir, 'proceed'), '');

      second = await startGateway({ ...env, QUEUE_SUPERVISE_SECONDS: '1', QUEUE_HEARTBEAT_SECONDS: '10' });
      const secondPid = await pidOf();
      expect(secondPid).to.not.equal(firstPid);
      // Every run ends: the ones whose command had started at the kill are recorded as interrupted
      // (never started again); the others run once on the restarted gateway.
      // Asked through the server's admin socket, as `deliveries list` and `deliveries show` ask it.
      const admin = await runningServerAdmin(env);
      expect(admin, 'the restarted server answers on its admin socket').to.not.equal(undefined);
      const outcomes = async (): Promise<string[]> => {
        const listed = (await admin!.deliveries('trigger=durable')) as unknown as Array<{ id: string }>;
        const shown = await Promise.all(
          listed.map(
            async (row) =>
              (await admin!.delivery(row.id)) as unknown as {
                runs: Array<{ actions: Array<{ status: string; error: string | null }> }>;
              },
          ),
        );
        return shown.flatMap((delivery) =>
          delivery.runs.flatMap((run) =>
            run.actions.filter((action) => action.status !== 'running').map((action) => `${action.status}: ${action.error ?? ''}`),
          ),
        );
      };
      let ended: string[] = [];
      try {
        await waitFor(async () => (ended = await outcomes()).length >= N, 40_000, `${N} runs ended`);
      } catch (error) {
        throw new Error(
          `${(error as Error).message}; ${startedAtKill} action(s) were running at the kill; ${Math.round((Date.now() - killedAt) / 1000)} s after the kill ` +
            `the runs ended: ${JSON.stringify(ended)}. Tasks whose worker was killed are taken again when the ` +
            'embedded database is opened again (after the retry delay), or else after QUEUE_HEARTBEAT_SECONDS (10) + QUEUE_SUPERVISE_SECONDS (1)',
        );
      }
      await queuesDrained(second.url); // nothing is left to run: a run started twice would show by now
      const lines = await durableLines();
      const byPid = lines.map((line) => Number(line.split(' ')[0]));
      // A command of the killed gateway goes on in its spawner, finds the gateway gone and exits 9:
      // recorded with that outcome when it ended before the restarted gateway looked at its run
      // (the spawner left it beside the start mark), else as interrupted.
      const interrupted = ended.filter((outcome) => outcome.includes('interrupted') || outcome === 'failed: exit code 9');
      console.log(
        `      ${startedAtKill} action(s) running at the kill, recorded as interrupted or with the exit code they ended with: ${interrupted.length} (${ended.filter((o) => o === 'failed: exit code 9').length} ended); durable.txt: ${lines.length} line(s), all by the restarted gateway: ${byPid.every((p) => p === secondPid)}`,
      );
      expect(ended.filter((outcome) => outcome.startsWith('succeeded')).length + interrupted.length, JSON.stringify(ended)).to.equal(N);
      // Every action whose command had started is among those, and none of them is started again;
      // an action marked running whose command had not started yet (its start mark missing) is
      // started by the restarted gateway: every command started exactly once.
      expect(interrupted.length, 'the actions running at the kill').to.be.at.least(startedAtKill).and.below(N);
      expect(await started(), 'commands started, over both gateways').to.equal(N);
      // Each run that had not started ran once: one line each, by the restarted gateway; none twice.
      expect(lines.length).to.equal(N - interrupted.length);
      expect(
        byPid.every((p) => p === secondPid),
        'every line written by the restarted gateway',
      ).to.equal(true);
      expect(existsSync(join(dir, 'CODEHOST_RAN')), 'the refused code-host delivery ran its trigger').to.equal(false);
    });
  });

  describe('trigger file validation', () => {
    let dir: string;
    let bad: string;
    let good: string;

    before(async () => {
      dir = await tempDir('e2e-triggers-check');
      bad = join(dir, 'bad-triggers.json');
      good = join(dir, 'good-triggers.json');
      await writeFile(
        bad,
        JSON.stringify([
          { name: 'fine', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
          { name: 'deploy', watch_path: '/webhook', enabled: true, actions: [{ type: 'webhook', url: 'http://127.0.0.1:9/x', method: 'PUT' }] },
          { name: 'typo', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'echo {{bodyy.x}}' }] },
          { name: 'commented', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'make # {{body.x}}' }] },
        ]),
      );
      await writeFile(
        good,
        JSON.stringify([
          { name: 'fine', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'echo {{body.x}}' }] },
          { name: 'off', watch_path: '/codehost/webhook', enabled: false, actions: [{ type: 'webhook', url: 'http://127.0.0.1:9/x', method: 'GET' }] },
        ]),
      );
    });

    it('`triggers check --file` exits 1 naming the file, the trigger (index and name) and the field; 0 for a valid file', async () => {
      const env = { DATA_DIR: dir, TRIGGERS_DIR: dir };
      const checked = await runCli(['triggers', 'check', '--file', bad], env);
      expect(checked.code, checked.stderr).to.equal(1);
      expect(checked.stderr).to.contain(`${bad}: trigger #1 "deploy": actions[0].method: must be GET or POST`);
      expect(checked.stderr).to.contain(`${bad}: trigger #2 "typo": actions[0].command: unknown template token {{bodyy.x}}`);
      expect(checked.stderr).to.contain(
        `${bad}: trigger #3 "commented": actions[0].command: {{body.x}} stands inside a # comment: the command would never see the value`,
      );
      expect(checked.stderr).to.not.contain('"fine"');

      const ok = await runCli(['triggers', 'check', '--file', good], env);
      expect(ok.code, ok.stderr).to.equal(0);
      expect(ok.stdout).to.contain(`${good}: 2 triggers valid (1 enabled)`);
    });

    it('`triggers check` refuses what start-up refuses: a command action without TRIGGERS_DIR, a --file that does not exist', async () => {
      const noDirectory = await runCli(['triggers', 'check', '--file', good], { DATA_DIR: dir, TRIGGERS_DIR: join(dir, 'no-such-dir') });
      expect(noDirectory.code, noDirectory.stdout).to.equal(1);
      expect(noDirectory.stderr).to.equal(`TRIGGERS_DIR: ${join(dir, 'no-such-dir')} does not exist (command actions run there)\n1 problem found\n`);
      const typo = await runCli(['triggers', 'check', '--file', join(dir, 'TRIGGERS.jsn')], { DATA_DIR: dir, TRIGGERS_DIR: dir });
      expect(typo.code, typo.stdout).to.equal(1);
      expect(typo.stderr).to.equal(`${join(dir, 'TRIGGERS.jsn')}: does not exist\n1 problem found\n`);
      // The configured file may be absent: the service then runs with no triggers.
      const none = await runCli(['triggers', 'check'], { DATA_DIR: dir, TRIGGERS_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') });
      expect(none.code, none.stderr).to.equal(0);
      expect(none.stdout).to.equal(`${join(dir, 'none.json')} does not exist: the service runs with no triggers (TRIGGERS_FILE)\n`);
    });

    it('refuses to start with an invalid trigger file, naming the file and the field', async () => {
      let failure: Error | undefined;
      let started: GatewayProcess | undefined;
      try {
        started = await startGateway({ DATA_DIR: join(dir, 'data'), TRIGGERS_FILE: bad, TRIGGERS_DIR: dir });
      } catch (error) {
        failure = error as Error;
      } finally {
        await started?.stop();
      }
      expect(failure, 'the gateway started with an invalid trigger file').to.be.instanceOf(Error);
      expect(failure!.message).to.contain('gateway exited with 1');
      expect(failure!.message).to.contain(`${bad}: trigger #1 \\"deploy\\": actions[0].method: must be GET or POST`);
    });
  });
});
