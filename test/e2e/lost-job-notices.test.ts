import { expect } from 'chai';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { MikroOrmJobRepository } from '../../src/adapters/persistence/mikro-orm-job-repository.js';
import type { Job } from '../../src/domain/jobs/job.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { queuesDrained, waitFor } from '../support/http.js';

const TOKEN = '123456:LOST-notice-token-AAAAbbbb';
const CHAT_ID = 100_501;

/*
 * A chat job's status is stored first and its notice queued after: a service killed in between
 * leaves the job finished without its notice. The built server, started again on the same
 * DATA_DIR, sends it, once; a job whose notice was queued gets none again.
 */
describe('e2e: the notice of a chat job that finished when the service died', () => {
  let gateway: GatewayProcess | undefined;
  let telegram: FakeTelegram | undefined;
  after(async () => {
    await gateway?.stop();
    await telegram?.close();
  });

  it('is sent at the next start, once; a job already notified gets none, and the job is marked', async function () {
    this.timeout(90_000);
    const dataDir = await migratedDataDir('e2e-lost-notice-data');
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const chatJob = (id: string, updatedAt: Date): Job => ({
      id,
      job: 'Fix it',
      status: 'succeeded',
      source: { kind: 'chat', thread: `telegram:${CHAT_ID}` },
      llmProvider: null,
      llmModel: null,
      branch: `job/${id}`,
      prUrl: 'https://github.com/o/r/pull/9',
      runUrl: null,
      summary: 'Fixed it',
      error: null,
      log: null,
      createdAt: minutesAgo(10),
      updatedAt,
    });
    // Notified before the stop: its notice queued and the job marked.
    const notified = chatJob('62000000-0000-4000-8000-000000000001', minutesAgo(4));
    // What a SIGKILL right after the job's end leaves: the job finished, no notice, no mark.
    const lost = chatJob('62000000-0000-4000-8000-000000000002', minutesAgo(3));
    const open = () => Database.open({ databaseUrl: undefined, dataDir, logger: new PinoLogger(createPino('silent')) });
    let database = await open();
    try {
      const jobs = new MikroOrmJobRepository(database);
      await jobs.add(notified);
      await jobs.markNoticeQueued(notified.id, minutesAgo(4));
      await jobs.add(lost);
    } finally {
      await database.close();
    }

    telegram = await startFakeTelegram([TOKEN]);
    gateway = await startGateway({
      DATA_DIR: dataDir,
      MESSAGING_BOT_TOKEN: TOKEN,
      MESSAGING_WEBHOOK_SECRET: 'lost-notice-webhook_secret-0123456789',
      MESSAGING_API_URL: telegram.url,
      MESSAGING_ALLOWED_CHAT_IDS: String(CHAT_ID),
    });
    const noticesOf = (job: Job) => telegram!.of('sendMessage').filter((call) => String(call.body.text).includes(job.id));
    await waitFor(() => noticesOf(lost).length > 0, 30_000, 'the notice of the job finished without it');
    await queuesDrained(gateway.url);
    expect(noticesOf(lost)).to.have.length(1);
    expect(String(noticesOf(lost)[0].body.chat_id)).to.equal(String(CHAT_ID));
    expect(String(noticesOf(lost)[0].body.text))
      .to.include('succeeded')
      .and.include('https://github.com/o/r/pull/9');
    expect(noticesOf(notified)).to.deep.equal([]);
    await gateway.stop();
    gateway = undefined;

    // Marked: no sweep of a later start finds it.
    database = await open();
    try {
      expect(await new MikroOrmJobRepository(database).listAwaitingNotice({ changedBefore: new Date(Date.now() + 60_000), limit: 10 })).to.deep.equal([]);
    } finally {
      await database.close();
    }
  });
});
