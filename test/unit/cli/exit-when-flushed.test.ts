import { expect } from 'chai';
import { Writable } from 'node:stream';
import { exitWhenFlushed } from '../../../src/cli/exit-when-flushed.js';

/** A stream whose writes are taken only when `take()` is called: a pipe whose reader is slow. */
const slowPipe = () => {
  const pending: Array<() => void> = [];
  let taken = 0;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, done) {
      pending.push(() => {
        taken += chunk.length;
        done();
      });
    },
  });
  return {
    stream,
    taken: () => taken,
    /** Lets the reader take every write so far and those they lead to. */
    async takeAll() {
      while (pending.length > 0) {
        pending.shift()!();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
};

describe('exitWhenFlushed (the CLI ends once its output was taken)', () => {
  it('exits with the code only after a slow reader took the whole output', async () => {
    const pipe = slowPipe();
    const output = 'x'.repeat(70_000);
    pipe.stream.write(output);
    const exits: number[] = [];
    const done = exitWhenFlushed(3, [pipe.stream], (code) => exits.push(code));
    // Nothing was taken yet: the exit waits (it cannot come before the first write's callback).
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits, 'exit before the output was taken').to.deep.equal([]);
    await pipe.takeAll();
    await done;
    expect(pipe.taken()).to.equal(output.length);
    expect(exits).to.deep.equal([3]);
  });

  it('exits at once when nothing is left to write, and when the reader went away', async () => {
    const idle = slowPipe();
    const exits: number[] = [];
    await exitWhenFlushed(0, [idle.stream], (code) => exits.push(code));
    expect(exits).to.deep.equal([0]);

    const gone = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    gone.on('error', () => undefined);
    gone.write('some output');
    await exitWhenFlushed(1, [gone], (code) => exits.push(code));
    expect(exits).to.deep.equal([0, 1]);
  });
});
