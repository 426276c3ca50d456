import { expect } from 'chai';
import { webThread } from '../../../src/adapters/http/admin/chat-pages.js';

describe('admin web chat thread', () => {
  const token = '0123456789abcdef'.repeat(4);
  const other = 'fedcba9876543210'.repeat(4);

  it('names one thread per session, by a hash of its token: no part of the token is in the name stored with every turn', () => {
    const thread = webThread(token);
    expect(thread).to.match(/^web:[0-9a-f]{16}$/);
    expect(webThread(token)).to.equal(thread);
    expect(webThread(other)).not.to.equal(thread);
    const name = thread.slice('web:'.length);
    for (let start = 0; start + 8 <= token.length; start++) expect(name, 'a piece of the token').not.to.contain(token.slice(start, start + 8));
  });
});
