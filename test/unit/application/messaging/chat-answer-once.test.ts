import { expect } from 'chai';
import { AI_PROVIDERS, AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob } from '../../../../src/application/jobs/create-job.js';
import { CreateJobOnce } from '../../../../src/application/jobs/create-job-once.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { ChatAgent } from '../../../../src/application/messaging/chat-agent.js';
import { MessagingChannels, type ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import {
  APOLOGY,
  LATE_RUN_MARGIN_MS,
  type LateRuns,
  ReplyToChatMessage,
  apologyWithJobs,
  replyKey,
} from '../../../../src/application/messaging/reply-to-chat-message.js';
import { AiCallFailed } from '../../../../src/domain/ai/ai-call-failed.js';
import type { ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';
import type { AiClient, AiRequest, AiResponse } from '../../../../src/ports/ai-client.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { InMemoryIdempotencyKeyStore } from '../../../fakes/in-memory-idempotency-key-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

/*
 * A chat message is answered by a task of the queue, run again when its process is killed (or
 * stopped past the grace period) while it runs. Each attempt asks the model anew, which words the
 * job anew: the jobs an answer created must be those of every later attempt (one job per
 * create_job of the first attempt, never a second), and the reply is sent by one attempt only.
 */

/** One model call: what it does with the request (call tools, hold, fail) and the answer. */
type Step = (request: AiRequest) => Promise<AiResponse>;

/** A model whose calls are scripted as functions, one per call; records the tool results. */
class StepAi implements AiClient {
  readonly requests: AiRequest[] = [];
  readonly toolResults: unknown[] = [];
  /** The calls to come, in order. */
  readonly steps: Step[] = [];
  async generate(request: AiRequest): Promise<AiResponse> {
    this.requests.push(request);
    const step = this.steps.shift();
    if (step === undefined) throw new Error('the model was asked more often than scripted');
    return step(request);
  }
  /** Runs a tool as the model would, recording its result. */
  async call(request: AiRequest, name: string, input: Record<string, unknown>): Promise<unknown> {
    const tool = request.tools?.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const result = await tool.execute(input);
    this.toolResults.push(result);
    return result;
  }
}

/** A step that calls create_job with each prompt, then answers naming the jobs it got. */
const creating =
  (ai: StepAi, ...prompts: string[]): Step =>
  async (request) => {
    const ids: unknown[] = [];
    for (const job of prompts) ids.push(((await ai.call(request, 'create_job', { job })) as { job_id?: unknown }).job_id);
    return { text: `Started ${ids.join(', ')}.`, steps: 1 + prompts.length, toolCalls: prompts.map((job) => ({ name: 'create_job', input: { job } })) };
  };

const setup = (steps: (ai: StepAi) => Step[]) => {
  const jobs = new InMemoryJobRepository();
  const queue = new InMemoryTaskQueue();
  const ids = new SequentialIds();
  const clock = new FixedClock();
  const createJob = new CreateJob(jobs, queue, new EnvironmentSecretStore({}, AI_PROVIDERS), ids, clock, new RecordingLogger(), {
    llmProviders: AI_PROVIDER_NAMES,
    defaultProvider: undefined,
    defaultModel: undefined,
    unavailableReason: undefined,
  });
  const once = new CreateJobOnce(createJob, new InMemoryIdempotencyKeyStore(), jobs, new NodeApiKeyCrypto(), ids, clock);
  const ai = new StepAi();
  ai.steps.push(...steps(ai));
  const conversations = new InMemoryConversationStore();
  const agentLog = new RecordingLogger();
  const agent = new ChatAgent(
    ai,
    conversations,
    createJob,
    new GetJobStatus(jobs),
    ids,
    { historyTurns: 10, maxSteps: 5, systemPrompt: async () => 'You are the bot.', llmProviders: AI_PROVIDER_NAMES },
    once,
    agentLog,
  );
  return { ai, agent, jobs, queue, conversations, agentLog };
};

const input = (text: string, answerKey?: string) => ({
  threadId: 'telegram:42',
  text,
  images: [],
  metadata: { userId: 'telegram', chatTitle: 'Telegram' },
  ...(answerKey !== undefined && { answerKey }),
});

const rejection = async (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Error,
  );

describe('A chat answer made again (its task run again after a kill) creates no second job', () => {
  it('ChatAgent: the first attempt fails after create_job (the conversation cannot be written); the second, worded anew, gets the same job', async () => {
    const { ai, agent, jobs, queue, conversations } = setup((ai) => [
      creating(ai, 'Fix the login bug'),
      creating(ai, 'Repair the login form (users cannot sign in)'),
    ]);
    const appendAnswer = conversations.appendAnswer.bind(conversations);
    let appends = 0;
    conversations.appendAnswer = async (thread, turns, key) => {
      if (appends++ === 0) throw new Error('database gone');
      return appendAnswer(thread, turns, key);
    };
    expect((await rejection(agent.execute(input('please fix login', 'task:t1')))).message).to.equal('database gone');
    expect(jobs.jobs.size).to.equal(1);
    const [first] = [...jobs.jobs.values()];

    const reply = await agent.execute(input('please fix login', 'task:t1'));
    expect(ai.toolResults.map((result) => (result as { job_id: string }).job_id)).to.deep.equal([first.id, first.id]);
    expect(reply).to.equal(`Started ${first.id}.`);
    expect([...jobs.jobs.values()].map((job) => job.job)).to.deep.equal(['Fix the login bug']);
    expect(queue.tasks).to.have.length(1);
  });

  it('ChatAgent: the n-th job of an answer is the n-th of every attempt; a refused call takes no number; another message (key) gets jobs of its own', async () => {
    const refusedThenTwo: (ai: StepAi) => Step = (ai) => async (request) => {
      const refused = await ai.call(request, 'create_job', { job: 'Fix it', llm_provider: 'no-such-provider' });
      expect(refused).to.have.property('error');
      return creating(ai, 'Fix A', 'Fix B')(request);
    };
    const { ai, agent, jobs } = setup((ai) => [
      refusedThenTwo(ai),
      creating(ai, 'Fix A, worded anew', 'Fix B, worded anew', 'And a third one'),
      creating(ai, 'Fix A'),
    ]);
    await agent.execute(input('fix A and B', 'task:t1'));
    const [a, b] = [...jobs.jobs.keys()];
    await agent.execute(input('fix A and B', 'task:t1'));
    const third = [...jobs.jobs.keys()][2];
    expect(ai.toolResults.slice(1).map((result) => (result as { job_id: string }).job_id)).to.deep.equal([a, b, a, b, third]);
    await agent.execute(input('now fix A again', 'task:t2'));
    expect(jobs.jobs.size).to.equal(4);
  });

  it('ChatAgent: an answer without a key (the web chat) creates a job for every call', async () => {
    const { agent, jobs } = setup((ai) => [creating(ai, 'Fix it'), creating(ai, 'Fix it')]);
    await agent.execute(input('fix it'));
    await agent.execute(input('fix it'));
    expect(jobs.jobs.size).to.equal(2);
  });

  describe('ReplyToChatMessage', () => {
    const message: ChannelMessage = {
      threadId: '42',
      text: 'please fix the login bug',
      attachments: [],
      metadata: { userId: 'fake', chatTitle: 'Fake', updateId: '1', messageId: '10', edited: false },
    };
    const replying = (steps: (ai: StepAi) => Step[], replies: InMemoryDeliveryLog | undefined = new InMemoryDeliveryLog(), lateRuns?: LateRuns) => {
      const made = setup(steps);
      const platform = new FakeMessagingChannel({ maxMessageLength: 4096 });
      const channel: ChatChannel = {
        platform,
        credentials: new InMemoryBotTokenStore('bot-token'),
        settings: {
          webhookSecret: 's',
          allowedChatIds: new Set(['42']),
          variables: { botToken: 'FAKE_TOKEN', webhookSecret: 'FAKE_SECRET', allowedChats: 'FAKE_ALLOWED_CHATS' },
        },
      };
      const logger = new RecordingLogger();
      const reply = new ReplyToChatMessage(new MessagingChannels([channel]), made.agent, logger, undefined, undefined, undefined, undefined, replies, lateRuns);
      return { ...made, platform, reply, replies, logger };
    };

    it('a task killed while the model holds after its create_job runs again: the same job, one reply; the first attempt, should it still run, sends nothing', async () => {
      let resume!: (error: Error) => void;
      const { ai, jobs, platform, reply } = replying((ai) => [
        // The first attempt: the tool runs, then the model's next step never comes back (the process is killed).
        async (request) => {
          await ai.call(request, 'create_job', { job: 'Fix the login bug' });
          return new Promise<AiResponse>((_, fail) => (resume = fail));
        },
        creating(ai, 'Repair the login form'),
      ]);
      const killed = reply.execute({ message }, { id: 'task-1', attempt: 1 });
      while (jobs.jobs.size === 0) await new Promise((resolve) => setImmediate(resolve));
      const [first] = [...jobs.jobs.values()];

      await reply.execute({ message }, { id: 'task-1', attempt: 2 });
      expect(ai.toolResults.map((result) => (result as { job_id: string }).job_id)).to.deep.equal([first.id, first.id]);
      expect(jobs.jobs.size).to.equal(1);
      expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([`Started ${first.id}.`]);

      // The first attempt was still running after all (taken back by the queue, not killed): its
      // model fails now, and its apology is not sent after the reply of the second.
      resume(new Error('connection reset'));
      await killed;
      expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([`Started ${first.id}.`]);
      expect(platform.sent.map((sent) => sent.message.plain)).to.not.include(APOLOGY);
    });

    it('the model failing after its create_job ran: the reply says the answer failed and names the job (status, branch, how to follow it); an attempt run again names the same job and creates none', async () => {
      // Each attempt: create_job runs, then the model's next step times out.
      const failingAfter =
        (ai: StepAi, job: string): Step =>
        async (request) => {
          await ai.call(request, 'create_job', { job });
          throw new AiCallFailed('timeout', 'no answer within 120 s');
        };
      // A reply log that keeps nothing: the first attempt's reply is as if a kill came before it was recorded.
      const forgetful = new InMemoryDeliveryLog();
      forgetful.recordFirst = async () => true;
      forgetful.recorded = async () => false;
      const { jobs, platform, reply } = replying((ai) => [failingAfter(ai, 'Fix the login bug'), failingAfter(ai, 'Repair the login form')], forgetful);
      await reply.execute({ message }, { id: 'task-4', attempt: 1 });
      expect(jobs.jobs.size).to.equal(1);
      const [job] = [...jobs.jobs.values()];
      await reply.execute({ message }, { id: 'task-4', attempt: 2 });
      expect(jobs.jobs.size).to.equal(1);

      const sent = platform.sent.map((one) => one.message.plain);
      expect(sent).to.have.length(2);
      for (const text of sent) {
        expect(text.startsWith(`${APOLOGY}\n\n`), text).to.equal(true);
        expect(text).to.include(`job ${job.id} (queued, branch job/${job.id})`);
        expect(text).to.include('You will get a message here when it finishes; meanwhile you can ask me for its status.');
      }
      expect(sent[1]).to.equal(sent[0]);
    });

    it('the model failing after its create_job ran: the message and the apology naming the job are kept once; the next message’s model reads them; an attempt run again sends the kept apology without asking the model', async () => {
      const failingAfter =
        (ai: StepAi, job: string): Step =>
        async (request) => {
          await ai.call(request, 'create_job', { job });
          throw new AiCallFailed('timeout', 'no answer within 120 s');
        };
      const forgetful = new InMemoryDeliveryLog();
      forgetful.recordFirst = async () => true;
      forgetful.recorded = async () => false;
      const { ai, jobs, platform, reply, conversations } = replying(
        (ai) => [failingAfter(ai, 'Fix the login bug'), async () => ({ text: 'It is queued.', steps: 1, toolCalls: [] })],
        forgetful,
      );
      await reply.execute({ message }, { id: 'task-6', attempt: 1 });
      const [job] = [...jobs.jobs.values()];
      const apology = apologyWithJobs([{ jobId: job.id, branch: job.branch, status: 'queued' }]);
      const kept = () => [...conversations.threads.values()].flat().map(({ role, text }) => ({ role, text }));
      expect(kept()).to.deep.equal([
        { role: 'user', text: 'please fix the login bug' },
        { role: 'assistant', text: apology },
      ]);
      // Killed before its reply was recorded: run again, it sends what was kept — the model is not asked, nothing is kept twice.
      await reply.execute({ message }, { id: 'task-6', attempt: 2 });
      expect(ai.requests).to.have.length(1);
      expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([apology, apology]);
      expect(kept()).to.have.length(2);

      await reply.execute(
        { message: { ...message, text: 'what happened to my request?', metadata: { ...message.metadata, updateId: '2', messageId: '11' } } },
        { id: 'task-7', attempt: 1 },
      );
      const next = ai.requests[1].messages;
      expect(next.map((turn) => turn.role)).to.deep.equal(['user', 'assistant', 'user']);
      expect(next[0].text).to.contain('please fix the login bug');
      expect(next[1].text).to.equal(apology).and.contain(job.id);
      expect(jobs.jobs.size).to.equal(1);
    });

    it('a model failure whose exchange cannot be kept (the conversation store is down) is still answered with the apology, and the store’s failure is logged', async () => {
      const { platform, reply, conversations, logger, agentLog } = replying(() => [
        async () => {
          throw new AiCallFailed('unavailable', 'overloaded');
        },
      ]);
      conversations.appendAnswer = async () => {
        throw new Error('database gone');
      };
      await reply.execute({ message }, { id: 'task-8', attempt: 1 });
      expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([APOLOGY]);
      expect(logger.entries.find((entry) => entry.message === 'AI call failed')?.fields).to.include({ reason: 'unavailable' });
      expect(agentLog.entries.map((entry) => [entry.level, entry.message])).to.deep.equal([
        ['warn', 'the model failed, and its message could not be kept in the conversation either'],
      ]);
    });

    it('ChatAgent: an attempt whose model fails after another attempt of the answer stored its answer gives that answer, and keeps no apology', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const { agent, conversations } = setup(() => [
        async () => {
          await held;
          throw new AiCallFailed('timeout', 'no answer within 120 s');
        },
        async () => ({ text: 'Here it is.', steps: 1, toolCalls: [] }),
      ]);
      const first = agent.execute(input('please answer', 'task:t10'));
      expect(await agent.execute({ ...input('please answer', 'task:t10'), retried: true })).to.equal('Here it is.');
      release();
      expect(await first).to.equal('Here it is.');
      expect([...conversations.threads.values()].flat().map((turn) => turn.text)).to.deep.equal(['please answer', 'Here it is.']);
    });

    it('the apology names every job the answer created, and no follow-up notice for jobs already finished; without a job it is the fixed text', () => {
      expect(apologyWithJobs([])).to.equal(APOLOGY);
      const two = apologyWithJobs([
        { jobId: 'a1', branch: 'job/a1', status: 'queued' },
        { jobId: 'b2', branch: 'job/b2', status: 'running' },
      ]);
      expect(two).to.equal(
        `${APOLOGY}\n\nThese jobs were created all the same: job a1 (queued, branch job/a1); job b2 (running, branch job/b2). You will get a message here when each one finishes; meanwhile you can ask me for their status.`,
      );
      expect(apologyWithJobs([{ jobId: 'c3', branch: 'job/c3', status: 'succeeded' }])).to.equal(
        `${APOLOGY}\n\nThe job was created all the same: job c3 (succeeded, branch job/c3). You can ask me for its status.`,
      );
    });

    it('a task killed after its exchange was stored, before its reply was recorded, runs again: the stored answer is sent once; the model is not asked again, no job is created, the history holds the exchange once', async () => {
      const log = new InMemoryDeliveryLog();
      const record = log.recordFirst.bind(log);
      let killed = true;
      // The first attempt stops for good where it would record its reply (the kill).
      log.recordFirst = (id, event) => (killed ? new Promise<boolean>(() => undefined) : record(id, event));
      const { ai, jobs, platform, reply, conversations } = replying((ai) => [creating(ai, 'Fix the login bug'), creating(ai, 'Repair the login form')], log);
      void reply.execute({ message }, { id: 'task-5', attempt: 1 });
      const turns = () => [...conversations.threads.values()].flat();
      while (turns().length < 2) await new Promise((resolve) => setImmediate(resolve));
      const [job] = [...jobs.jobs.values()];
      expect(platform.sent).to.have.length(0);

      killed = false;
      await reply.execute({ message }, { id: 'task-5', attempt: 2 });
      expect(ai.requests).to.have.length(1);
      expect(jobs.jobs.size).to.equal(1);
      expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal([`Started ${job.id}.`]);
      expect(turns().map(({ role, text }) => ({ role, text }))).to.deep.equal([
        { role: 'user', text: 'please fix the login bug' },
        { role: 'assistant', text: `Started ${job.id}.` },
      ]);
      expect(await log.recorded(replyKey('fake', 'task-5'))).to.equal(true);
    });

    it('two attempts of a task at once (one taken back while it still ran) store one exchange, and the later one to store gets the answer stored first', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const { agent, conversations, jobs } = setup((ai) => [
        async (request) => {
          await held;
          await ai.call(request, 'create_job', { job: 'Fix the login bug' });
          return { text: 'The late answer.', steps: 2, toolCalls: [] };
        },
        creating(ai, 'Repair the login form'),
      ]);
      const first = agent.execute(input('please fix login', 'task:t9'));
      // The second attempt runs to its end while the first one's model holds.
      const second = await agent.execute({ ...input('please fix login', 'task:t9'), retried: true });
      const [job] = [...jobs.jobs.values()];
      expect(second).to.equal(`Started ${job.id}.`);
      release();
      expect(await first).to.equal(`Started ${job.id}.`);
      expect(jobs.jobs.size).to.equal(1);
      expect([...conversations.threads.values()].flat().map((turn) => turn.text)).to.deep.equal(['please fix login', `Started ${job.id}.`]);
    });

    it('a task run again after its reply went out (killed before the queue took its end in) asks the model nothing and sends nothing', async () => {
      const { ai, jobs, platform, reply, replies } = replying((ai) => [creating(ai, 'Fix the login bug')]);
      await reply.execute({ message }, { id: 'task-2', attempt: 1 });
      expect(await replies!.recorded(replyKey('fake', 'task-2'))).to.equal(true);
      await reply.execute({ message }, { id: 'task-2', attempt: 2 });
      expect(ai.requests).to.have.length(1);
      expect(jobs.jobs.size).to.equal(1);
      expect(platform.sent).to.have.length(1);
    });

    it('a task run again later than its job keys are kept (an outage of days) is not answered — no model call, no job, no reply, a warning — while one run again in time, or a first attempt however late, is', async () => {
      const DAY = 86_400_000;
      const clock = new FixedClock(new Date('2026-06-20T00:00:00Z'));
      const keysKeptMs = 15 * DAY;
      const queuedAgo = (ms: number) => new Date(clock.now().getTime() - ms).toISOString();
      const { ai, jobs, platform, reply, logger } = replying(
        (ai) => [creating(ai, 'Fix the login bug'), creating(ai, 'Fix the login bug')],
        new InMemoryDeliveryLog(),
        { clock, keysKeptMs },
      );
      await reply.execute({ message, queuedAt: queuedAgo(keysKeptMs - LATE_RUN_MARGIN_MS + 1) }, { id: 'task-late', attempt: 2 });
      expect(ai.requests).to.have.length(0);
      expect(jobs.jobs.size).to.equal(0);
      expect(platform.sent).to.have.length(0);
      expect(logger.entries.find((entry) => entry.level === 'warn')).to.deep.include({
        message: 'chat task run again later than its answer is surely remembered; not answered, so that no job of it is created twice nor its reply sent again',
      });

      await reply.execute({ message, queuedAt: queuedAgo(keysKeptMs - LATE_RUN_MARGIN_MS - 1) }, { id: 'task-in-time', attempt: 2 });
      await reply.execute({ message, queuedAt: queuedAgo(20 * DAY) }, { id: 'task-first', attempt: 1 });
      expect(ai.requests).to.have.length(2);
      expect(platform.sent).to.have.length(2);
    });

    it('a reply log that fails does not keep the reply from going out', async () => {
      const failing = new InMemoryDeliveryLog();
      failing.recordFirst = async () => {
        throw new Error('database gone');
      };
      const { platform, reply } = replying((ai) => [creating(ai, 'Fix the login bug')], failing);
      await reply.execute({ message }, { id: 'task-3', attempt: 1 });
      expect(platform.sent).to.have.length(1);
    });
  });
});
