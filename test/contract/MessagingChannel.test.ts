import { TelegramChannel } from '../../src/adapters/messaging/TelegramChannel.js';
import { startFakeTelegram } from '../support/fakeTelegram.js';
import { describeMessagingChannelContract } from './MessagingChannel.contract.js';

describeMessagingChannelContract('Telegram against a loopback fake Bot API', async () => {
  const fake = await startFakeTelegram();
  const waits: number[] = [];
  const sleep = async (ms: number): Promise<void> => void waits.push(ms);
  return { channel: new TelegramChannel({ apiUrl: fake.url, attempts: 3, backoffMs: 0, maxRetryAfterMs: 5000, timeoutMs: 5000, sleep }), fake, waits };
});
