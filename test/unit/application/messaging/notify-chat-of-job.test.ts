import { expect } from 'chai';
import { NotifyingJobRepository } from '../../../../src/application/jobs/notifying-job-repository.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { CHAT_JOB_FINISHED_QUEUE, NotifyChatOfJob, queueChatJobNotice } from '../../../../src/application/messaging/notify-chat-of-job.js';
import { NOTICE_LOST_AFTER_MS, RequeueLostJobNotices } from '../../../../src/application/messaging/requeue-lost-job-notices.js';
import { markdownToMrkdwn } from '../../../../src/adapters/messaging/slack/slack-mrkdwn.js';
import { markdownToTelegramHtml } from '../../../../src/adapters/messaging/telegram/telegram-html.js';
import type { Job } from '../../../../src/domain/jobs/job.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
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
    return { platform, logger, notify: new NotifyChatOfJob(channels, new FixedClock(), logger) };
  };

  it('is stored as one task the moment the job finishes, whoever finishes it, and once however often it is asked; the job is marked', async () => {
    const store = new InMemoryTaskStore();
    const queue = new InMemoryTaskQueue(store);
    const inner = new InMemoryJobRepository();
    const clock = new FixedClock();
    const listened: Array<Promise<unknown>> = [];
    const jobs = new NotifyingJobRepository(
      inner,
      (job) => {
        const queued = queueChatJobNotice(queue, inner, clock, job);
        listened.push(queued);
        return queued.then(() => undefined);
      },
      new RecordingLogger(),
    );
    await jobs.add(chatJob('running'));
    expect(store.tasks).to.deep.equal([]);
    await jobs.modify(JOB_ID, (job) => ({ ...job, status: 'succeeded' }));
    await Promise.all(listened);
    expect(inner.noticesQueued.get(JOB_ID)).to.deep.equal(clock.now());
    expect(await queueChatJobNotice(queue, inner, clock, chatJob('succeeded'))).to.equal(null);
    const notices = store.tasks.filter((task) => task.queue === CHAT_JOB_FINISHED_QUEUE);
    expect(notices.map((task) => task.payload)).to.deep.equal([{ jobId: JOB_ID }]);
  });

  it('sends the job as it is stored; a notice none of whose parts went out throws, so that the queue tries it again', async () => {
    const { platform, notify } = setup();
    const jobs = new InMemoryJobRepository();
    await jobs.add(chatJob('failed', 'Could not'));
    platform.failNext('send', 'server-error');
    const first = await notify.run({ jobId: JOB_ID }, jobs).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(first?.message).to.contain('Internal Server Error');
    expect(platform.sent).to.deep.equal([]);
    await notify.run({ jobId: JOB_ID }, jobs);
    expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([
      `Job ${JOB_ID} failed.\n\nSummary written by the agent:\n> Could not\n\nBranch: job/${JOB_ID}`,
    ]);
    // A job no longer stored (retention) has no notice.
    await notify.run({ jobId: '60000000-0000-4000-8000-000000000002' }, jobs);
    expect(platform.sent).to.have.length(1);
  });

  it("shows the agent's summary as the agent's, quoted whole: a summary cannot forge the gateway's lines, on Telegram or Slack", async () => {
    const { platform, notify } = setup(2000);
    const forged = `Job ${JOB_ID} succeeded.\nPull request: https://github.com/x/y/pull/1`;
    await notify.execute({ ...chatJob('failed', `${forged}\n\nAll done.\nBranch: main`), error: 'Exit code 1' });
    const [notice] = platform.sent.map((sent) => sent.message.plain);
    expect(notice).to.equal(
      [
        `Job ${JOB_ID} failed.`,
        'Error: Exit code 1',
        '',
        'Summary written by the agent:',
        `> Job ${JOB_ID} succeeded.`,
        '> Pull request: https://github.com/x/y/pull/1',
        '>',
        '> All done.',
        '> Branch: main',
        '',
        `Branch: job/${JOB_ID}`,
      ].join('\n'),
    );
    // As each platform shows it: the real status first, the real branch last, the forged lines only inside the quote.
    const html = markdownToTelegramHtml(notice);
    const outsideQuote = html.replace(/<blockquote>[\s\S]*?<\/blockquote>/g, '');
    expect(html.split('\n')[0]).to.equal(`Job ${JOB_ID} failed.`);
    expect(html.split('\n').at(-1)).to.equal(`Branch: job/${JOB_ID}`);
    expect(html).to.contain(`<blockquote>Job ${JOB_ID} succeeded.\nPull request: https://github.com/x/y/pull/1`);
    expect(outsideQuote).not.to.contain('succeeded').and.not.to.contain('Pull request');
    const mrkdwn = markdownToMrkdwn(notice).split('\n');
    expect(mrkdwn[0]).to.equal(`Job ${JOB_ID} failed.`);
    expect(mrkdwn.at(-1)).to.equal(`Branch: job/${JOB_ID}`);
    const unquoted = mrkdwn.filter((line) => !line.startsWith('>')).join('\n');
    expect(unquoted).not.to.contain('succeeded').and.not.to.contain('Pull request').and.not.to.contain('All done');
  });

  it("puts the error on its one line: an error holding the agent's text (a git hook's output) cannot forge the gateway's lines", async () => {
    const { platform, notify } = setup(2000);
    const forged = `git commit exited with code 1: x\nJob ${JOB_ID} succeeded.\r\nPull request: https://github.com/x/y/pull/1\u2028Branch: main`;
    await notify.execute({ ...chatJob('failed', null), error: forged });
    const [notice] = platform.sent.map((sent) => sent.message.plain);
    expect(notice).to.equal(
      [
        `Job ${JOB_ID} failed.`,
        // Literal Markdown: an address in it is not one to link (Telegram and Slack show it as text).
        `Error: git commit exited with code 1: x Job ${JOB_ID} succeeded. Pull request: https\\://github.com/x/y/pull/1 Branch: main`,
        `Branch: job/${JOB_ID}`,
      ].join('\n'),
    );
    for (const shown of [markdownToTelegramHtml(notice), markdownToMrkdwn(notice)]) {
      const lines = shown.split(/\r\n?|\n|\u2028|\u2029/);
      expect(lines[0]).to.equal(`Job ${JOB_ID} failed.`);
      expect(lines.filter((line) => /^\W*(Job |Pull request|Branch: main)/.test(line))).to.deep.equal([`Job ${JOB_ID} failed.`]);
    }
    // A long error is cut.
    await notify.execute({ ...chatJob('failed', null), error: 'x'.repeat(2000) });
    expect(platform.sent[1].message.plain.split('\n')[1]).to.have.length('Error: '.length + 500);
  });

  it("shows an error, branch or address holding Markdown as typed, on Telegram and Slack: a git config key's link is no link of the gateway's", async () => {
    const { platform, notify } = setup(2000);
    // `git config 'hook.[…](…).command' x` keeps the key as written, and the runner's error names it.
    const key = 'hook.[Re-authorize the gateway](https://evil.example/login).command';
    const error = `git commit exited with code 1: fatal: bad config key ${key}`;
    await notify.execute({ ...chatJob('failed', null), error, branch: 'job/[Sign in](https://evil.example/b)' });
    await notify.execute({ ...chatJob('succeeded', null), prUrl: 'https://github.com/acme/repo/pull/7 [Merge now](https://evil.example/m)' });
    const [failed, succeeded] = platform.sent.map((sent) => sent.message.plain);
    const html = markdownToTelegramHtml(failed).split('\n');
    expect(html[1]).to.equal(`Error: ${error}`);
    expect(html[2]).to.equal('Branch: job/[Sign in](https://evil.example/b)');
    expect(markdownToTelegramHtml(succeeded).split('\n').at(-1)).to.equal(
      'Pull request: https://github.com/acme/repo/pull/7 [Merge now](https://evil.example/m)',
    );
    const mrkdwn = markdownToMrkdwn(failed).split('\n');
    expect(mrkdwn[1]).to.equal(`Error: ${error}`);
    expect(mrkdwn[2]).to.equal('Branch: job/[Sign in](https://evil.example/b)');
    for (const shown of [markdownToTelegramHtml(failed), markdownToTelegramHtml(succeeded), markdownToMrkdwn(failed), markdownToMrkdwn(succeeded)]) {
      expect(shown).to.not.match(/<a |<https?:/);
    }
  });

  it('keeps the pull request line last, after the quote, and leaves the quote out for a job without a summary', async () => {
    const { platform, notify } = setup(2000);
    await notify.execute({ ...chatJob('succeeded', '> already quoted\ntext'), prUrl: 'https://github.com/acme/repo/pull/7' });
    await notify.execute(chatJob('cancelled', null));
    expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([
      `Job ${JOB_ID} succeeded.\n\nSummary written by the agent:\n> > already quoted\n> text\n\nPull request: https\\://github.com/acme/repo/pull/7`,
      `Job ${JOB_ID} cancelled.\nBranch: job/${JOB_ID}`,
    ]);
    expect(markdownToTelegramHtml(platform.sent[0].message.plain).split('\n').at(-1)).to.equal('Pull request: https://github.com/acme/repo/pull/7');
  });

  it('does not send a part again: once the first part went out, a failing later part is given up and logged, not thrown', async () => {
    const { platform, notify, logger } = setup(20);
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

  it('marks the job before sending: a notice sent, its task gone from the queue, and its job left unmarked by a kill is not queued again by the sweep', async () => {
    const { platform, notify } = setup();
    const store = new InMemoryTaskStore();
    const queue = new InMemoryTaskQueue(store);
    const jobs = new InMemoryJobRepository();
    const clock = new FixedClock();
    // A kill after the task was stored and before the job was marked: the status is stored, the job unmarked.
    await jobs.add({ ...chatJob('succeeded'), updatedAt: clock.now() });
    await queue.enqueue(CHAT_JOB_FINISHED_QUEUE, { jobId: JOB_ID }, { key: `chat-job-finished:${JOB_ID}` });
    // Another worker ran that task: the notice went out; then the queue let the finished task go.
    await notify.run({ jobId: JOB_ID }, jobs);
    expect(platform.sent).to.have.length(1);
    store.tasks.length = 0;
    store.keys.clear();
    clock.advance(NOTICE_LOST_AFTER_MS + 1);
    expect(await new RequeueLostJobNotices(jobs, queue, clock, new RecordingLogger()).execute()).to.equal(0);
    expect(store.tasks).to.deep.equal([]);
  });
});

describe('RequeueLostJobNotices: a chat job finished without its notice (a kill between the two writes) gets it', () => {
  const id = (n: number): string => `61000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const jobOf = (n: number, status: Job['status'], source: Job['source'] = { kind: 'chat', thread: 'fake:42' }): Job => ({
    ...chatJob(status),
    id: id(n),
    branch: `job/${id(n)}`,
    source,
  });
  const setup = () => {
    const store = new InMemoryTaskStore();
    const queue = new InMemoryTaskQueue(store);
    const inner = new InMemoryJobRepository();
    const clock = new FixedClock();
    const logger = new RecordingLogger();
    const listened: Array<Promise<unknown>> = [];
    // The service's repository: the notice is queued, then the job marked, after the status is stored.
    const jobs = new NotifyingJobRepository(
      inner,
      (job) => {
        const queued = queueChatJobNotice(queue, inner, clock, job);
        listened.push(queued);
        return queued.then(() => undefined);
      },
      new RecordingLogger(),
    );
    const sweep = new RequeueLostJobNotices(jobs, queue, clock, logger);
    const noticesOf = (jobId: string) =>
      store.tasks.filter((task) => task.queue === CHAT_JOB_FINISHED_QUEUE && (task.payload as { jobId: string }).jobId === jobId).length;
    /** A job stored with the time of the clock, finished as a killed process left it: status stored, no notice. */
    const addAsLeft = (job: Job) => inner.add({ ...job, updatedAt: clock.now() });
    return { store, queue, inner, clock, logger, listened, jobs, sweep, noticesOf, addAsLeft };
  };

  it('queues exactly one notice for a finished chat job whose notice was never queued; none for one marked, a young one, an unfinished one or a non-chat one', async () => {
    const { store, jobs, clock, logger, listened, sweep, noticesOf, addAsLeft } = setup();
    const lost = jobOf(1, 'succeeded');
    await addAsLeft(lost);
    // Finished in the service: notice queued and the job marked.
    await jobs.add({ ...jobOf(2, 'running'), updatedAt: clock.now() });
    await jobs.modify(id(2), (job) => ({ ...job, status: 'failed', updatedAt: clock.now() }));
    await Promise.all(listened);
    await addAsLeft(jobOf(3, 'running'));
    await addAsLeft(jobOf(4, 'cancelled', { kind: 'api' }));
    await addAsLeft(jobOf(5, 'failed', { kind: 'trigger', name: 'nightly' }));
    expect(await sweep.execute(), 'young: its notice may be on the way').to.equal(0);
    expect(noticesOf(lost.id)).to.equal(0);
    clock.advance(NOTICE_LOST_AFTER_MS + 1);
    expect(await sweep.execute()).to.equal(1);
    expect([1, 2, 3, 4, 5].map((n) => noticesOf(id(n)))).to.deep.equal([1, 1, 0, 0, 0]);
    expect(await sweep.execute(), 'once').to.equal(0);
    // Days later the queue no longer keeps the tasks (nor their keys): a marked job is not looked at again.
    store.keys.clear();
    clock.advance(7 * 86_400_000);
    expect(await sweep.execute()).to.equal(0);
    expect([1, 2].map((n) => noticesOf(id(n)))).to.deep.equal([1, 1]);
    expect(logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.fields)).to.deep.equal([{ jobId: lost.id }]);
  });

  it('queues no second notice for a job killed after its notice was queued but before it was marked, and marks it', async () => {
    const { store, queue, inner, clock, logger, sweep, noticesOf, addAsLeft } = setup();
    const job = jobOf(6, 'succeeded');
    await addAsLeft(job);
    await queue.enqueue(CHAT_JOB_FINISHED_QUEUE, { jobId: job.id }, { key: `chat-job-finished:${job.id}` });
    clock.advance(NOTICE_LOST_AFTER_MS + 1);
    expect(await sweep.execute()).to.equal(0);
    expect(inner.noticesQueued.has(job.id)).to.equal(true);
    store.keys.clear();
    expect(await sweep.execute()).to.equal(0);
    expect(noticesOf(job.id)).to.equal(1);
    expect(logger.entries.filter((entry) => entry.level === 'warn')).to.deep.equal([]);
  });

  it('queues the notice of a job whose notice could not be queued when it finished (the queue was down), once', async () => {
    const { queue, jobs, clock, listened, sweep, noticesOf } = setup();
    await jobs.add({ ...jobOf(7, 'running'), updatedAt: clock.now() });
    queue.failNext = true;
    await jobs.modify(id(7), (job) => ({ ...job, status: 'succeeded', updatedAt: clock.now() }));
    expect(await Promise.allSettled(listened)).to.have.nested.property('[0].status', 'rejected');
    expect(noticesOf(id(7))).to.equal(0);
    clock.advance(NOTICE_LOST_AFTER_MS + 1);
    expect(await sweep.execute()).to.equal(1);
    expect(await sweep.execute()).to.equal(0);
    expect(noticesOf(id(7))).to.equal(1);
  });
});
