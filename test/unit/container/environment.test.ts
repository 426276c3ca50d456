import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/container/config.js';
import { configFromEnvironment } from '../../../src/container/environment.js';

describe('configFromEnvironment', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'env-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names .env and says it is a directory when it is one, instead of Node’s “should be a valid string”', () => {
    mkdirSync(join(dir, '.env'));
    let error: unknown;
    try {
      configFromEnvironment(dir);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.deep.equal([
      `.env (${join(dir, '.env')}) is a directory, not a file of NAME=value lines: remove it or put the file in its place`,
    ]);
  });
});
