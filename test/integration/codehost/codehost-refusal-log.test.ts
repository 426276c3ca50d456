import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { startCodehostWebhookServer, type CodehostWebhookServer } from '../../support/codehost-webhook-server.js';
import { InMemoryDeliveryLog } from '../../fakes/in-memory-delivery-log.js';
import type { RecordingLogger } from '../../fakes/recording-logger.js';

const SECRET = 'refusal-log-secret';

/**
 * POST /api/codehost/webhook through the service's router and handler: a refused request's
 * `X-GitHub-Event` header is unsigned and anyone's, up to Node's header limit (16 KB). Each
 * refused request writes one warning of bounded size, whatever that header holds.
 */
describe('the warning of a refused code-host delivery', function () {
  this.timeout(30_000);
  let server: CodehostWebhookServer;
  let url: string;
  let logger: RecordingLogger;

  beforeEach(async () => {
    server = await startCodehostWebhookServer({ secret: SECRET, deliveries: new InMemoryDeliveryLog() });
    url = server.url;
    logger = server.logger;
  });

  afterEach(async () => server.close());

  const body = '{"zen":"hi"}';
  const post = async (event: string, signature: string | undefined): Promise<number> => {
    const response = await fetch(`${url}/api/codehost/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': 'd-1',
        ...(signature && { 'x-hub-signature-256': signature }),
      },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  };
  const refusals = () => logger.entries.filter((entry) => entry.message === 'code-host delivery refused');

  it('shows at most 100 characters of a long event header, marked as cut, once per request', async () => {
    const event = `${'e'.repeat(100)}${'x'.repeat(14_900)}`;
    const forged = `sha256=${createHmac('sha256', 'a guess').update(body).digest('hex')}`;
    // Refused before the body is read (no signature), then after it (a wrong one).
    expect(await post(event, undefined)).to.equal(401);
    expect(await post(event, forged)).to.equal(401);
    expect(await post(event, 'sha256=00')).to.equal(401);

    const lines = refusals();
    expect(lines).to.have.length(3);
    for (const line of lines) {
      expect(line.level).to.equal('warn');
      expect(line.fields).to.have.all.keys('event', 'reason');
      expect((line.fields as { event: string }).event).to.equal(`${'e'.repeat(100)}…[cut: 15000 characters]`);
      expect(JSON.stringify(line.fields).length).to.be.below(300);
    }
  });

  it('shows a short event header whole', async () => {
    expect(await post('push', undefined)).to.equal(401);
    expect(await post('e'.repeat(100), 'sha256=00')).to.equal(401);
    expect(refusals().map((line) => (line.fields as { event: string }).event)).to.deep.equal(['push', 'e'.repeat(100)]);
  });
});
