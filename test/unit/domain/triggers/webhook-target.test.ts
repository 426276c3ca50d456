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
});
