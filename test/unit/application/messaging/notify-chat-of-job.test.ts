import { expect } from 'chai';
import { NotifyingJobRepository } from '../../../../src/application/jobs/notifying-job-repository.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { CHAT_JOB_FINISHED_QUEUE, NotifyChatOfJob, queueChatJobNotice } from '../../../../src/application/messaging/notify-chat-of-job.js';
import type { Job } from '../../../../src/domain/jobs/job.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue, InMemoryTaskStore } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const JOB_ID = '60000000-0000-4000-8000-000000000001';
const chatJob = (status: Job['status'], summary: string | null = 'Fixed it'): Job => ({
  id: JOB_ID,
  job: 'Fix it',
  status,
  source: { kind: 'chat', thread: 'fake:42' },
  llmProvider: null,
  llmModel: null,
  branch: `job/${JOB_ID}`,
  prUrl: null,
  runUrl: null,
  summary,
  error: null,
  log: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('NotifyChatOfJob: the notice of a finished chat job is a durable task', () => {
  const setup = (maxMessageLength = 500) => {
    const platform = new FakeMessagingChannel({ maxMessageLength });
    const channels = new MessagingChannels([
      {
        platform,
        credentials: new InMemoryBotTokenStore('bot-token'),
        settings: { webhookSecret: 's', allowedChatIds: new Set(['42']), variables: { botToken: 'A', webhookSecret: 'B', allowedChats: 'C' } },
      },
    ]);
    const logger = new RecordingLogger();
    return { platform, logger, notify: new NotifyChatOfJob(channels, logger) };
  };

  it('is stored as one task the moment the job finishes, whoever finishes it, and once however often it is asked', async () => {
    const store = new InMemoryTaskStore();
    const queue = new InMemoryTaskQueue(store);
    const inner = new InMemoryJobRepository();
    const jobs = new NotifyingJobRepository(inner, (job) => queueChatJobNotice(queue, job), new RecordingLogger());
    await jobs.add(chatJob('running'));
    expect(store.tasks).to.deep.equal([]);
    await jobs.modify(JOB_ID, (job) => ({ ...job, status: 'succeeded' }));
    await queueChatJobNotice(queue, chatJob('succeeded'));
    const notices = store.tasks.filter((task) => task.queue === CHAT_JOB_FINISHED_QUEUE);
    expect(notices.map((task) => task.payload)).to.deep.equal([{ jobId: JOB_ID }]);
  });

  it('sends the job as it is stored; a notice none of whose parts went out throws, so that the queue tries it again', async () => {
    const { platform, notify } = setup();
    const jobs = new InMemoryJobRepository();
    await jobs.add(chatJob('failed', 'Could not'));
    platform.failSends = 1;
    const first = await notify.run({ jobId: JOB_ID }, jobs).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(first?.message).to.equal('platform down');
    expect(platform.sent).to.deep.equal([]);
    await notify.run({ jobId: JOB_ID }, jobs);
    expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([`Job ${JOB_ID} failed.\nCould not\nBranch: job/${JOB_ID}`]);
    // A job no longer stored (retention) has no notice.
    await notify.run({ jobId: '60000000-0000-4000-8000-000000000002' }, jobs);
    expect(platform.sent).to.have.length(1);
  });

  it('does not send a part again: once the first part went out, a failing later part is given up and logged, not thrown', async () => {
    const { platform, notify, logger } = setup(20);
    platform.failSends = 0;
    const job = chatJob('succeeded', 'A summary long enough for several parts');
    let sends = 0;
    const send = platform.sendMessage.bind(platform);
    platform.sendMessage = async (...args) => {
      sends++;
      if (sends === 2) throw new Error('platform down');
      return send(...args);
    };
    await notify.execute(job);
    expect(platform.sent).to.have.length(1);
    expect(logger.entries.some((entry) => entry.message === 'could not send the rest of a job notice; given up')).to.equal(true);
  });
});
