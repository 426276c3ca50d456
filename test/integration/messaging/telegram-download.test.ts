import { expect } from 'chai';
import { TelegramChannel } from '../../../src/adapters/messaging/telegram/telegram-channel.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fake-telegram.js';

const TOKEN = '123456:DOWNLOAD-token';

describe('TelegramChannel: downloads within a size limit, against the fake Bot API', () => {
  let tg: FakeTelegram;
  let channel: TelegramChannel;
  beforeEach(async () => {
    tg = await startFakeTelegram([TOKEN]);
    channel = new TelegramChannel({ apiUrl: tg.url, attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
    tg.files.set('voice-1', { path: 'voice/file_1.oga', data: Buffer.alloc(100, 7) });
  });
  afterEach(async () => tg.close());

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: { code?: string; message?: string }) => e,
    );

  it('downloads a file within the limit (getFile, then the file URL)', async () => {
    const file = await channel.download(TOKEN, 'voice-1', 100);
    expect(file.data.length).to.equal(100);
    expect(file.path).to.equal('voice/file_1.oga');
  });

  it('refuses a file over the limit by the size getFile tells, before downloading it', async () => {
    const error = await failure(channel.download(TOKEN, 'voice-1', 99));
    expect(error).to.include({ code: 'payload_too_large' });
    expect(error?.message).to.include('100 bytes');
  });

  it("takes Telegram's refusal of a file too big for bots (over 20 MB) as too large", async () => {
    tg.failNext('getFile', { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: file is too big' } });
    expect(await failure(channel.download(TOKEN, 'voice-1', 1000))).to.include({ code: 'payload_too_large' });
  });
});
