import { expect } from 'chai';
import { shownWebhookTarget } from '../../../../src/domain/triggers/webhook-target.js';

describe('shownWebhookTarget', () => {
  it('shows scheme and host, and hides the path and query, where a webhook URL keeps its secret', () => {
    expect(shownWebhookTarget('https://hooks.slack.com/services/T000/B000/path-secret-42')).to.equal('https://hooks.slack.com/…');
    expect(shownWebhookTarget('https://discord.com/api/webhooks/1/tok?wait=true')).to.equal('https://discord.com/…');
    expect(shownWebhookTarget('http://127.0.0.1:8080/?token=abc')).to.equal('http://127.0.0.1:8080/…');
    expect(shownWebhookTarget('https://ci.example.com')).to.equal('https://ci.example.com');
    expect(shownWebhookTarget('https://user:pw@ci.example.com/x')).to.equal('https://ci.example.com/…');
    expect(shownWebhookTarget('not a url')).to.equal('an invalid URL');
  });

  it('never shows a user, a password, a path segment, a query value or a fragment, whatever they hold', () => {
    const urls = [
      'https://alice:pa55word@hooks.example.com/',
      'https://api.telegram.org/bot123456:SECRETTOKEN/sendMessage',
      'https://ntfy.sh/secrettopic',
      'https://hooks.example.com/?token=SECRETTOKEN&a=1',
      'https://hooks.example.com/x#SECRETTOKEN',
      'https://hooks.example.com/%E2%80%AEsecret',
    ];
    const shown = urls.map(shownWebhookTarget);
    expect(shown).to.deep.equal([
      'https://hooks.example.com',
      'https://api.telegram.org/…',
      'https://ntfy.sh/…',
      'https://hooks.example.com/…',
      'https://hooks.example.com/…',
      'https://hooks.example.com/…',
    ]);
    for (const secret of ['alice', 'pa55word', 'SECRETTOKEN', 'secrettopic', 'secret']) expect(shown.join(' ')).to.not.contain(secret);
  });
});
