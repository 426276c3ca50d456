import { expect } from 'chai';
import { AI_PROVIDER_NAMES, AI_PROVIDERS } from '../../../../src/adapters/ai/ai-providers.js';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob } from '../../../../src/application/jobs/create-job.js';
import { CreateJobOnce, KEYED_CHAT_SCOPE, ORPHANED_CLAIM_MS } from '../../../../src/application/jobs/create-job-once.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import { canonicalJson } from '../../../../src/domain/jobs/idempotency.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryIdempotencyKeyStore } from '../../../fakes/in-memory-idempotency-key-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

const CALLER = 'key-1';
const HOUR = 3_600_000;

const setup = (queueLimit?: number) => {
  const jobs = new InMemoryJobRepository();
  const queue = new InMemoryTaskQueue();
  const clock = new FixedClock();
  const ids = new SequentialIds();
  const keys = new InMemoryIdempotencyKeyStore();
  const secrets = new EnvironmentSecretStore({ OPENAI_API_KEY: 'sk' }, AI_PROVIDERS);
  const settings = {
    llmProviders: AI_PROVIDER_NAMES,
    defaultProvider: undefined,
    defaultModel: undefined,
    unavailableReason: undefined,
    ...(queueLimit !== undefined && { queueLimit: { jobs: queueLimit, setting: 'JOB_QUEUE_LIMIT' } }),
  };
  const createJob = new CreateJob(jobs, queue, secrets, ids, clock, new RecordingLogger(), settings);
  const once = new CreateJobOnce(createJob, keys, jobs, new NodeApiKeyCrypto(), ids, clock);
  const create = (body: unknown, idempotencyKey?: string | string[], apiKeyId = CALLER) => once.execute({ body, idempotencyKey, apiKeyId });
  return { jobs, queue, clock, keys, create, once };
};

const failure = async (promise: Promise<unknown>): Promise<DomainError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(DomainError);
  return error as DomainError;
};

describe('CreateJobOnce', () => {
  it('problemWith returns, at once, the 400 of every body that execute refuses, and nothing for a valid one', async () => {
    const { once, create, jobs } = setup();
    for (const body of [undefined, {}, { job: '' }, { job: 'a\u0000b' }, { job: 'x', llm_model: 3 }]) {
      const problem = once.problemWith(body);
      expect(problem, JSON.stringify(body)).to.be.instanceOf(DomainError);
      const refused = await failure(create(body, 'same-key'));
      expect(refused.code, JSON.stringify(body)).to.equal('invalid_input');
      expect(problem?.code, JSON.stringify(body)).to.equal('invalid_input');
      expect(problem?.message, JSON.stringify(body)).to.equal(refused.message);
    }
    expect(once.problemWith({ job: 'Fix it' })).to.equal(undefined);
    expect(jobs.jobs.size).to.equal(0);
  });

  it('creates a job for every request without a key', async () => {
    const { create, jobs } = setup();
    const first = await create({ job: 'Fix it' });
    const second = await create({ job: 'Fix it' });
    expect(first.jobId).to.not.equal(second.jobId);
    expect([first.replayed, second.replayed]).to.deep.equal([false, false]);
    expect(jobs.jobs.size).to.equal(2);
  });

  it('answers the same key and body with the first job and creates nothing, also when only key order or spacing differ', async () => {
    const { create, jobs, queue } = setup();
    const first = await create({ job: 'Fix it', llm_provider: 'openai' }, 'order-42');
    const again = await create({ llm_provider: 'openai', job: 'Fix it' }, 'order-42');
    expect(again).to.deep.equal({ ...first, replayed: true });
    expect(jobs.jobs.size).to.equal(1);
    expect(queue.tasks).to.have.length(1);
  });

  it('answers with the job as it is now (its current status)', async () => {
    const { create, jobs } = setup();
    const first = await create({ job: 'Fix it' }, 'k');
    await jobs.modify(first.jobId, (job) => ({ ...job, status: 'running' }));
    expect(await create({ job: 'Fix it' }, 'k')).to.include({ jobId: first.jobId, status: 'running', replayed: true });
  });

  it('refuses the same key with another body: 409 naming the key, nothing created', async () => {
    const { create, jobs } = setup();
    await create({ job: 'Fix it' }, 'order-42');
    const conflict = await failure(create({ job: 'Fix something else' }, 'order-42'));
    expect(conflict.code).to.equal('conflict');
    expect(conflict.message).to.equal('Idempotency-Key "order-42" was already used with a different request body');
    expect(jobs.jobs.size).to.equal(1);
  });

  it('keeps keys per caller: two API keys may use the same key for different jobs', async () => {
    const { create, jobs } = setup();
    const mine = await create({ job: 'Fix it' }, 'same', 'key-1');
    const theirs = await create({ job: 'Other' }, 'same', 'key-2');
    expect(mine.jobId).to.not.equal(theirs.jobId);
    expect(jobs.jobs.size).to.equal(2);
  });

  it('creates a new job once the 24 hours of a key are over', async () => {
    const { create, clock, jobs } = setup();
    const first = await create({ job: 'Fix it' }, 'k');
    clock.current = new Date(clock.current.getTime() + 24 * HOUR - 1);
    expect((await create({ job: 'Fix it' }, 'k')).jobId).to.equal(first.jobId);
    clock.current = new Date(clock.current.getTime() + 2);
    const later = await create({ job: 'Different body, new window' }, 'k');
    expect(later).to.include({ replayed: false });
    expect(later.jobId).to.not.equal(first.jobId);
    expect(jobs.jobs.size).to.equal(2);
  });

  it('answers a request repeated with its key with its job when the queue is full (JOB_QUEUE_LIMIT): only new jobs are refused', async () => {
    const { create, jobs } = setup(2);
    const first = await create({ job: 'Fix it' }, 'order-1');
    await create({ job: 'Other' });
    const refused = await failure(create({ job: 'Third' }, 'order-2'));
    expect(refused).to.include({ code: 'busy' });
    expect(await create({ job: 'Fix it' }, 'order-1')).to.deep.equal({ ...first, replayed: true });
    expect(jobs.jobs.size).to.equal(2);
  });

  it('releases the key of a request refused as the queue was full: sent again once there is room, it creates its job', async () => {
    const { create, jobs } = setup(1);
    const waiting = await create({ job: 'Waiting' });
    expect((await failure(create({ job: 'Fix it' }, 'order-2'))).code).to.equal('busy');
    await jobs.modify(waiting.jobId, (job) => ({ ...job, status: 'running' }));
    expect(await create({ job: 'Fix it' }, 'order-2')).to.include({ replayed: false, status: 'queued' });
  });

  it('refuses a bad key with 400: empty, longer than 255, not printable ASCII, sent twice', async () => {
    const { create, jobs } = setup();
    for (const key of ['', 'k'.repeat(256), 'tab\there', 'ünïcode', 'line\nbreak', ['a', 'b']]) {
      const refused = await failure(create({ job: 'Fix it' }, key));
      expect(refused.code, JSON.stringify(key)).to.equal('invalid_input');
      expect(refused.message).to.match(/^Idempotency-Key must/);
    }
    expect((await create({ job: 'Fix it' }, `${' '.repeat(1)}${'~'.repeat(254)}`)).replayed).to.equal(false);
    expect(jobs.jobs.size).to.equal(1);
  });

  it('checks the body before the key: a missing job is 400 Missing job field and claims nothing', async () => {
    const { create, keys } = setup();
    expect((await failure(create({}, 'k'))).message).to.equal('Missing job field');
    expect(keys.records.size).to.equal(0);
  });

  it('releases the key when the job could not be created, so a retry with the same key creates it', async () => {
    const { create, keys, jobs } = setup();
    expect((await failure(create({ job: 'Fix it', llm_provider: 'anthropic' }, 'k'))).message).to.match(/no secret configured/);
    expect(keys.records.size).to.equal(0);
    const retried = await create({ job: 'Fix it', llm_provider: 'openai' }, 'k');
    expect(retried.replayed).to.equal(false);
    expect(jobs.jobs.size).to.equal(1);
  });

  describe('one job per key whatever fails part way (a database outage answered 503)', () => {
    const outage = () => new DomainError('unavailable', 'Connection terminated unexpectedly');

    it('keeps the job stored whose task could not be queued `queued` under its key: sent again, the request gets it and queues its task — one job, one task', async () => {
      const { create, jobs, queue, keys } = setup();
      queue.failNext = true;
      const first = await failure(create({ job: 'Fix it' }, 'k'));
      expect(first).to.include({ code: 'internal', message: 'Failed to create job' });
      expect([...jobs.jobs.values()].map((job) => job.status)).to.deep.equal(['queued']);
      expect(queue.tasks).to.have.length(0);
      expect(keys.records.size).to.equal(1);

      const retried = await create({ job: 'Fix it' }, 'k');
      expect(retried).to.deep.include({ jobId: [...jobs.jobs.keys()][0], status: 'queued' });
      expect(jobs.jobs.size).to.equal(1);
      expect(queue.tasks.map((task) => task.payload)).to.deep.equal([{ jobId: retried.jobId }]);
      expect(await create({ job: 'Fix it' }, 'k')).to.include({ jobId: retried.jobId, replayed: true });
      expect(queue.tasks).to.have.length(1);
      // The key names that job: another body under it is refused, as for a job created at once.
      expect((await failure(create({ job: 'Something else' }, 'k'))).code).to.equal('conflict');
      expect(jobs.jobs.size).to.equal(1);
    });

    it('answers a retry with the job whose insert was stored though it failed (its answer lost), and queues its task', async () => {
      const { create, jobs, queue } = setup();
      const add = jobs.add.bind(jobs);
      jobs.add = async (job) => {
        jobs.add = add;
        await add(job);
        throw outage();
      };
      expect((await failure(create({ job: 'Fix it' }, 'k'))).code).to.equal('unavailable');
      const retried = await create({ job: 'Fix it' }, 'k');
      expect([...jobs.jobs.keys()]).to.deep.equal([retried.jobId]);
      expect(queue.tasks).to.have.length(1);
    });

    it('keeps the key when whether the job was stored is not known (the look fails too): the retry finds the job', async () => {
      const { create, jobs, queue } = setup();
      const add = jobs.add.bind(jobs);
      const get = jobs.get.bind(jobs);
      jobs.add = async (job) => {
        jobs.add = add;
        await add(job);
        jobs.get = async () => {
          jobs.get = get;
          throw outage();
        };
        throw outage();
      };
      expect((await failure(create({ job: 'Fix it' }, 'k'))).code).to.equal('unavailable');
      const retried = await create({ job: 'Fix it' }, 'k');
      expect([...jobs.jobs.keys()]).to.deep.equal([retried.jobId]);
      expect(queue.tasks).to.have.length(1);
    });

    it('releases the key of a job whose insert failed and is known not stored: the retry creates the job', async () => {
      const { create, jobs, keys } = setup();
      const add = jobs.add.bind(jobs);
      jobs.add = async () => {
        jobs.add = add;
        throw outage();
      };
      expect((await failure(create({ job: 'Fix it' }, 'k'))).code).to.equal('unavailable');
      expect(keys.records.size).to.equal(0);
      expect(await create({ job: 'Something else' }, 'k')).to.include({ replayed: false, status: 'queued' });
      expect(jobs.jobs.size).to.equal(1);
    });

    it('releases the key of a request refused before anything was stored (a provider without its secret) even when the look for its job fails: the corrected request with the key creates it', async () => {
      const { create, jobs, keys } = setup();
      const get = jobs.get.bind(jobs);
      jobs.get = async () => {
        jobs.get = get;
        throw outage();
      };
      const refused = await failure(create({ job: 'Fix it', llm_provider: 'anthropic' }, 'k'));
      expect(refused.code).to.equal('invalid_input');
      expect(keys.records.size).to.equal(0);
      expect(await create({ job: 'Fix it', llm_provider: 'openai' }, 'k')).to.include({ replayed: false, status: 'queued' });
      expect(jobs.jobs.size).to.equal(1);
    });
  });

  it('takes over a key whose claimer stopped before it stored the job, once the claim is a minute old', async () => {
    const { create, clock, keys, jobs } = setup();
    const orphan = '00000000-0000-4000-8000-00000000dead';
    const fingerprint = new NodeApiKeyCrypto().digest(canonicalJson({ job: 'Fix it' }));
    await keys.claim({ scope: CALLER, key: 'k', fingerprint, jobId: orphan, createdAt: clock.now() }, new Date(0));
    // Within the minute the claimer may still be storing it: try again (no job is named that may never exist).
    clock.current = new Date(clock.current.getTime() + ORPHANED_CLAIM_MS);
    const early = await failure(create({ job: 'Fix it' }, 'k'));
    expect(early).to.include({ code: 'conflict' });
    expect(early.message).to.equal(
      'A request with Idempotency-Key "k" is still creating its job; send it again in a moment to get the job (or the error it ended with)',
    );
    expect(jobs.jobs.size).to.equal(0);
    clock.current = new Date(clock.current.getTime() + 1);
    const taken = await create({ job: 'Fix it' }, 'k');
    expect(taken).to.include({ jobId: orphan, replayed: false, status: 'queued' });
    expect([...jobs.jobs.keys()]).to.deep.equal([orphan]);
    expect(await create({ job: 'Fix it' }, 'k')).to.include({ jobId: orphan, replayed: true });
  });

  it('creates one job when the first request is slow (over a minute) and a duplicate takes its claim over; both answer with it', async () => {
    const { create, clock, jobs, queue } = setup();
    let storeFirst!: () => void;
    const add = jobs.add.bind(jobs);
    let adds = 0;
    jobs.add = async (job) => {
      // The first request's insert hangs until the duplicate has stored the job.
      if (adds++ === 0) await new Promise<void>((resolve) => (storeFirst = resolve));
      return add(job);
    };
    const slow = create({ job: 'Fix it' }, 'k');
    while (adds === 0) await new Promise((resolve) => setImmediate(resolve));
    clock.current = new Date(clock.current.getTime() + ORPHANED_CLAIM_MS + 1);
    const duplicate = await create({ job: 'Fix it' }, 'k');
    expect(duplicate.replayed).to.equal(false);
    storeFirst();
    expect(await slow).to.deep.equal({ ...duplicate, replayed: true });
    expect([...jobs.jobs.keys()]).to.deep.equal([duplicate.jobId]);
    expect(queue.tasks).to.have.length(1);
    expect(jobs.jobs.get(duplicate.jobId)?.status).to.equal('queued');
  });

  it('creates one job for concurrent duplicates; those that come while it is being created are told to try again, then get it', async () => {
    const { create, jobs } = setup();
    const answers = await Promise.allSettled(Array.from({ length: 10 }, () => create({ job: 'Fix it' }, 'burst')));
    const created = answers.flatMap((answer) => (answer.status === 'fulfilled' && !answer.value.replayed ? [answer.value.jobId] : []));
    expect(created).to.have.length(1);
    for (const answer of answers) {
      if (answer.status === 'fulfilled') expect(answer.value.jobId).to.equal(created[0]);
      else expect(answer.reason).to.include({ code: 'conflict' });
    }
    expect(jobs.jobs.size).to.equal(1);
    expect(await create({ job: 'Fix it' }, 'burst')).to.include({ jobId: created[0], replayed: true });
  });
});

describe('CreateJobOnce.keyed (a step of the gateway that may run again: the chat tool)', () => {
  const SOURCE = { kind: 'chat', thread: 'telegram:42' } as const;
  const keyed = (once: CreateJobOnce, body: unknown, key = 'task:t1#1') => once.keyed({ body, source: SOURCE, scope: KEYED_CHAT_SCOPE, key });

  it('creates the job of a key once: a later call gets it whatever its body (no conflict), with the source given', async () => {
    const { once, jobs, queue } = setup();
    const first = await keyed(once, { job: 'Fix the login bug' });
    expect(first).to.include({ replayed: false, status: 'queued' });
    expect(jobs.jobs.get(first.jobId)?.source).to.deep.equal(SOURCE);
    const again = await keyed(once, { job: 'Please repair the login form', llm_provider: 'openai' });
    expect(again).to.deep.equal({ ...first, replayed: true });
    expect(jobs.jobs.size).to.equal(1);
    expect(queue.tasks).to.have.length(1);
    expect((await keyed(once, { job: 'Another job' }, 'task:t1#2')).jobId).to.not.equal(first.jobId);
  });

  it("keeps its keys apart from clients' Idempotency-Keys, and never takes a record as expired (only the sweep forgets it)", async () => {
    const { once, create, clock, jobs } = setup();
    const api = await create({ job: 'Fix it' }, 'task:t1#1');
    const chat = await keyed(once, { job: 'Fix it' });
    expect(chat.jobId).to.not.equal(api.jobId);
    clock.current = new Date(clock.current.getTime() + 48 * HOUR);
    expect(await keyed(once, { job: 'Fix it' })).to.include({ jobId: chat.jobId, replayed: true });
    expect(jobs.jobs.size).to.equal(2);
  });

  it('takes a claim whose job is missing (its claimer killed before the insert) over at once, under the claim id', async () => {
    const { once, clock, keys, jobs } = setup();
    const orphan = '00000000-0000-4000-8000-00000000dead';
    await keys.claim({ scope: KEYED_CHAT_SCOPE, key: 'task:t1#1', fingerprint: 'f'.repeat(64), jobId: orphan, createdAt: clock.now() }, new Date(0));
    expect(await keyed(once, { job: 'Worded anew' })).to.include({ jobId: orphan, replayed: false, status: 'queued' });
    expect([...jobs.jobs.keys()]).to.deep.equal([orphan]);
  });

  it('creates one job when two attempts create it at once (the slow one gets the job the other stored)', async () => {
    const { once, jobs, queue } = setup();
    let storeFirst!: () => void;
    const add = jobs.add.bind(jobs);
    let adds = 0;
    jobs.add = async (job) => {
      if (adds++ === 0) await new Promise<void>((resolve) => (storeFirst = resolve));
      return add(job);
    };
    const slow = keyed(once, { job: 'First wording' });
    while (adds === 0) await new Promise((resolve) => setImmediate(resolve));
    const other = await keyed(once, { job: 'Second wording' });
    storeFirst();
    expect(await slow).to.deep.equal({ ...other, replayed: true });
    expect(jobs.jobs.size).to.equal(1);
    expect(queue.tasks).to.have.length(1);
  });

  it('claims nothing for a bad body, and releases the key of a refused one: the next call with it creates the job', async () => {
    const { once, keys, jobs } = setup();
    expect((await failure(keyed(once, { job: '' }))).code).to.equal('invalid_input');
    expect((await failure(keyed(once, { job: 'Fix it', llm_provider: 'anthropic' }))).message).to.match(/no secret configured/);
    expect(keys.records.size).to.equal(0);
    expect(await keyed(once, { job: 'Fix it' })).to.include({ replayed: false });
    expect(jobs.jobs.size).to.equal(1);
  });

  it('gets the job of its key when the queue is full, and releases the key of one refused as it was full', async () => {
    const { once, jobs } = setup(1);
    const first = await keyed(once, { job: 'Fix it' });
    const refused = await failure(keyed(once, { job: 'Another' }, 'task:t1#2'));
    expect(refused.code).to.equal('busy');
    expect(await keyed(once, { job: 'Fix it, worded anew' })).to.deep.equal({ ...first, replayed: true });
    await jobs.modify(first.jobId, (job) => ({ ...job, status: 'running' }));
    expect(await keyed(once, { job: 'Another' }, 'task:t1#2')).to.include({ replayed: false, status: 'queued' });
  });

  it('answers with the job stored under the key when it could not be queued (failed), and keeps the key naming it', async () => {
    const { once, jobs, queue } = setup();
    queue.enqueue = async () => {
      throw new Error('queue down');
    };
    const first = await keyed(once, { job: 'Fix it' });
    expect(first).to.include({ status: 'failed', replayed: true });
    expect(await keyed(once, { job: 'Fix it again' })).to.include({ jobId: first.jobId, status: 'failed', replayed: true });
    expect(jobs.jobs.size).to.equal(1);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and drops whitespace, keeping array order and value types', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: '1' })).to.equal('{"a":"1","b":[2,{"c":null,"d":1}]}');
    expect(canonicalJson({ a: 1 })).to.not.equal(canonicalJson({ a: '1' }));
  });
});
