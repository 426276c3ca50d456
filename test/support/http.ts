import { expect } from 'chai';
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

/** A new API key from the CLI (`keys create --json`) on the gateway's database. */
export const createKey = async (env: Record<string, string>, name = 'e2e'): Promise<string> => {
  const created = await runCli(['keys', 'create', '--name', name, '--json'], env);
  expect(created.code, created.stderr).to.equal(0);
  return (JSON.parse(created.stdout) as { key: string }).key;
};
