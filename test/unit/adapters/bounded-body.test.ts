import { expect } from 'chai';
import { readAtMost } from '../../../src/adapters/messaging/bounded-body.js';

describe('readAtMost (downloads of chat files)', () => {
  /** A body of `chunks` chunks of 1000 bytes, counting how many were read. */
  const body = (chunks: number) => {
    const read = { count: 0 };
    const stream = (async function* () {
      for (let i = 0; i < chunks; i++) {
        read.count++;
        yield new Uint8Array(1000).fill(i);
      }
    })();
    return { stream, read };
  };

  it('gives a body that does not say its length up once it grows past the limit, reading no further', async () => {
    const { stream, read } = body(100);
    const error = await readAtMost(stream, null, 2500).then(
      () => expect.fail('expected a refusal'),
      (e: Error & { code?: string }) => e,
    );
    expect(error).to.include({ code: 'payload_too_large' });
    expect(read.count).to.equal(3);
  });

  it('refuses a body announced larger before reading it, and returns one within the limit whole', async () => {
    const large = body(1);
    await readAtMost(large.stream, '5000', 4000).then(
      () => expect.fail('expected a refusal'),
      (e: Error) => expect(e.message).to.equal('The file is 5000 bytes, over the limit of 4000'),
    );
    expect(large.read.count).to.equal(0);
    const small = await readAtMost(body(3).stream, '3000', 3000);
    expect([small.length, small[0], small[2999]]).to.deep.equal([3000, 0, 2]);
  });
});
