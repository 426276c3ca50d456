import { TelegramChannel } from '../../src/adapters/messaging/TelegramChannel.js';
import { startFakeTelegram } from '../support/fakeTelegram.js';
import { describeMessagingChannelContract } from './MessagingChannel.contract.js';

describeMessagingChannelContract('Telegram against a loopback fake Bot API', async () => {
  const fake = await startFakeTelegram();
  return { channel: new TelegramChannel({ apiUrl: fake.url, rateLimitRetries: 2, maxRetryAfterMs: 5000, timeoutMs: 5000 }), fake };
});
