import { expect } from 'chai';
import { AdminSocketClient } from '../../src/adapters/http/admin-socket/admin-socket-client.js';
import { adminSocketPath } from '../../src/adapters/http/admin-socket/admin-socket-path.js';
import { runCli } from './gateway-process.js';

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Polls `predicate` every 25 ms until it returns a truthy value; fails after `ms`. */
export const waitFor = async <T>(predicate: () => T | Promise<T>, ms = 20_000, what = 'condition'): Promise<NonNullable<T>> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
};

/** The background tasks of each queue still waiting (also for a retry) or running, from the gateway's GET /metrics. */
export const queueDepths = async (gatewayUrl: string, metricsToken?: string): Promise<Record<string, number>> => {
  const response = await fetch(`${gatewayUrl}/metrics`, { headers: metricsToken === undefined ? {} : { authorization: `Bearer ${metricsToken}` } });
  const text = await response.text();
  expect(response.status, text).to.equal(200);
  const depths: Record<string, number> = {};
  for (const [, queue, value] of text.matchAll(/^agw_queue_depth\{queue="([^"]+)"\} (\S+)$/gm)) depths[queue] = Number(value);
  expect(Object.keys(depths), `no agw_queue_depth in GET /metrics:\n${text}`).to.not.be.empty;
  return depths;
};

/**
 * Waits until every task queue of the gateway is empty: everything a request queued before
 * this call has run to its end (retries included). Tests that prove that something did NOT
 * happen wait for this instead of sleeping: once the queues are empty, nothing more will.
 */
export const queuesDrained = async (gatewayUrl: string, metricsToken?: string, ms = 30_000): Promise<void> => {
  let last: Record<string, number> = {};
  const deadline = Date.now() + ms;
  for (;;) {
    last = await queueDepths(gatewayUrl, metricsToken);
    if (Object.values(last).every((depth) => depth === 0)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for the task queues to drain: ${JSON.stringify(last)}`);
    await sleep(50);
  }
};

export interface JsonResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
}

/** fetch, with the body parsed as JSON when it is JSON (kept as text otherwise, for failure messages). */
export const send = async <T = unknown>(url: string, init: RequestInit = {}): Promise<JsonResponse<T>> => {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: body as T };
};

/**
 * The administration of a server running on the embedded database in `env.DATA_DIR`, through
 * its admin socket as the CLI reaches it; undefined on PostgreSQL or when no server answers.
 * Tests whose subject is not the CLI create keys and set passwords through it without a CLI
 * process each (test/e2e/cli.test.ts runs the CLI itself, with the server running and not).
 */
export const runningServerAdmin = async (env: Record<string, string>): Promise<AdminSocketClient | undefined> => {
  if (env.DATABASE_URL !== undefined || env.DATA_DIR === undefined) return undefined;
  const client = new AdminSocketClient(adminSocketPath(env.DATA_DIR));
  return (await client.reachable()) ? client : undefined;
};

/** A new API key on the gateway's database: from the running server's admin socket, else from the CLI (`keys create --json`). */
export const createKey = async (env: Record<string, string>, name = 'e2e'): Promise<string> => {
  const server = await runningServerAdmin(env);
  if (server !== undefined) return (await server.create(name)).key;
  const created = await runCli(['keys', 'create', '--name', name, '--json'], env);
  expect(created.code, created.stderr).to.equal(0);
  return (JSON.parse(created.stdout) as { key: string }).key;
};
