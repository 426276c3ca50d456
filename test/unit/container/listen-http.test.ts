import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/container/config.js';
import { listenHttp } from '../../../src/container/listen-http.js';
import { StartupError } from '../../../src/container/startup-error.js';

/** The StartupError listenHttp fails with for `HOST` (`.invalid` never resolves: RFC 2606). */
const failureFor = async (host: string): Promise<StartupError> => {
  const dir = await mkdtemp(join(tmpdir(), 'agw-listen-'));
  try {
    const config = loadConfig({ HOST: host, PORT: '0', LOG_LEVEL: 'silent' }, dir);
    const http = await listenHttp(config).catch((error: unknown) => error);
    if (!(http instanceof StartupError)) {
      await (http as { close?: () => Promise<void> }).close?.();
      expect.fail(`listened on ${host}`);
    }
    return http;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

describe('listenHttp: a HOST it cannot listen on names the setting and what to give instead', () => {
  it('a name that does not resolve (a typo of localhost)', async () => {
    const failure = await failureFor('localhostt.invalid');
    expect(failure.message).to.match(
      /^HOST: localhostt\.invalid cannot be resolved \((ENOTFOUND|EAI_AGAIN)\): give an address of this machine, 127\.0\.0\.1 \(this machine only\), 0\.0\.0\.0 \(every interface\) or a name it resolves, such as localhost$/,
    );
  });
});
