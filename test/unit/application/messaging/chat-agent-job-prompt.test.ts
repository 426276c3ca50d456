import { expect } from 'chai';
import { AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { ChatAgent } from '../../../../src/application/messaging/chat-agent.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { createJobOnFakes } from '../../../fakes/fake-create-job.js';
import { ScriptedAiClient } from '../../../fakes/scripted-ai-client.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

/*
 * The job tools show a job's prompt by its first 200 characters. Cut with slice, a prompt with an
 * emoji across the 200th character gave the model half of its surrogate pair: the tool result
 * went to the provider with a lone surrogate (`\ud83d` in its JSON), which the model reads as
 * garbage and a strict JSON parser refuses ("no low surrogate in string").
 */
/** Whether the text holds half of a surrogate pair on its own. */
const hasLoneSurrogate = (text: string): boolean => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

describe('ChatAgent job tools: a prompt shown by its beginning', () => {
  it('never ends in half of a surrogate pair (get_job_status and list_jobs)', async () => {
    const jobs = new InMemoryJobRepository();
    const id = '00000000-0000-4000-8000-0000000000bb';
    const prompt = `${'a'.repeat(199)}😀 and more`;
    await jobs.add({
      id,
      job: prompt,
      status: 'queued',
      source: { kind: 'api' },
      llmProvider: null,
      llmModel: null,
      branch: `job/${id}`,
      prUrl: null,
      runUrl: null,
      summary: null,
      error: null,
      log: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const ai = new ScriptedAiClient([
      {
        text: 'Here.',
        calls: [
          { name: 'get_job_status', input: { job_id: id } },
          { name: 'list_jobs', input: {} },
        ],
      },
    ]);
    const createJob = createJobOnFakes(jobs);
    const agent = new ChatAgent(ai, new InMemoryConversationStore(), createJob, new GetJobStatus(jobs), new SequentialIds(), {
      historyTurns: 4,
      maxSteps: 5,
      systemPrompt: async () => 'You are the team bot.',
      llmProviders: AI_PROVIDER_NAMES,
    });
    await agent.execute({ threadId: 'telegram:42', text: 'status?', images: [], metadata: { userId: 'telegram', chatTitle: 'Telegram' } });
    const [one, list] = ai.toolResults as [{ prompt: string }, Array<{ prompt: string }>];
    for (const shown of [one.prompt, list[0].prompt]) {
      expect(hasLoneSurrogate(shown), JSON.stringify(shown.slice(-60))).to.equal(false);
      expect(shown).to.contain('a'.repeat(199));
    }
  });
});
