import { expect } from 'chai';
import { reloadListener } from '../../../src/container/reload-channel.js';

describe('reloadListener (agw_reload)', () => {
  it('reloads on a notification, and when its connection comes back after a loss (a reload sent meanwhile was not heard), not when it first opens', () => {
    const reasons: string[] = [];
    const listener = reloadListener((reason) => reasons.push(reason));
    listener.onLiveChange(true);
    expect(reasons).to.deep.equal([]);
    listener.onMessage('');
    listener.onLiveChange(false);
    listener.onLiveChange(true);
    expect(reasons).to.deep.equal(['notification', 'notification connection back']);
  });
});
