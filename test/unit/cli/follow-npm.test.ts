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

describe('followNpm: under npm, the service stops when the process that started it ends', () => {
  it('stops once the parent changes (the shell npx ran the service under ended), naming npm’s command and the pid', async () => {
    let parent = 4242;
    const { stop, message } = stopped();
    let looks = 0;
    const unfollow = followNpm({
      env: { npm_command: 'exec' },
      intervalMs: 1,
      parent: () => {
        looks++;
        // Re-parented (to init or a subreaper) after a few looks.
        if (looks === 4) parent = 1;
        return parent;
      },
      stop,
    });
    try {
      expect(await message).to.equal('the process that started the service under npm exec (pid 4242) has ended: stopping as on SIGTERM');
    } finally {
      unfollow();
    }
  });

  it('follows nothing when npm did not start the service (systemd, a shell, setsid … &): no look at the parent at all', () => {
    let looks = 0;
    const unfollow = followNpm({
      env: {},
      intervalMs: 1,
      parent: () => {
        looks++;
        return 1;
      },
      stop: () => expect.fail('stopped without npm'),
    });
    unfollow();
    expect(looks).to.equal(0);
  });
});
