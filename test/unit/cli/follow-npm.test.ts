import { expect } from 'chai';
import { followNpm } from '../../../src/cli/follow-npm.js';

/** Resolves with the stop's message once followNpm calls it. */
const stopped = (): { readonly stop: (message: string) => void; readonly message: Promise<string> } => {
  let done: (message: string) => void = () => undefined;
  const message = new Promise<string>((resolve) => {
    done = resolve;
  });
  return { stop: (text) => done(text), message };
};

describe('followNpm: under npx, the service stops when the process that started it ends', () => {
  it('stops once the parent changes (the shell npx ran the service under ended), naming npx and the pid', async () => {
    let parent = 4242;
    const { stop, message } = stopped();
    let looks = 0;
    const unfollow = followNpm({
      env: { npm_command: 'exec' },
      intervalMs: 1,
      inGroupOf: () => true,
      parent: () => {
        looks++;
        // Re-parented (to init or a subreaper) after a few looks.
        if (looks === 4) parent = 1;
        return parent;
      },
      stop,
    });
    try {
      expect(await message).to.equal('the process that started the service under npx (pid 4242) has ended: stopping as on SIGTERM');
    } finally {
      unfollow();
    }
  });

  for (const [label, env, inGroup] of [
    ['npm did not start the service (systemd, a shell)', {}, true],
    ['npm start (its script runs the service with exec node: the signal reaches it)', { npm_command: 'start' }, true],
    ['another npm script, which may start it in the background on purpose (nohup … &)', { npm_command: 'run-script' }, true],
    ['npx, but the service left its process group (setsid)', { npm_command: 'exec' }, false],
  ] as const) {
    it(`follows nothing when ${label}: the parent is never looked at again`, () => {
      let looks = 0;
      const unfollow = followNpm({
        env,
        intervalMs: 1,
        parent: () => {
          looks++;
          return 1;
        },
        inGroupOf: () => inGroup,
        stop: () => expect.fail('stopped'),
      });
      unfollow();
      expect(looks).to.be.at.most(1);
    });
  }
});
