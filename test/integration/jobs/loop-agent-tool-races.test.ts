import { expect } from 'chai';
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LoopAgent } from '../../../src/adapters/jobs/loop-agent.js';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import type { AiClient, AiRequest, AiResponse } from '../../../src/ports/ai-client.js';
import { contractJob } from '../../contract/job-runner.contract.js';
import { tempDir } from '../../support/gateway-process.js';

/**
 * The built-in agent's file tools run in the gateway's process, outside any sandbox: a path is
 * checked, then opened. A command of the agent's running at the same time (the AI SDK runs one
 * step's tool calls concurrently) could swap a directory for a link in between and have a file
 * outside the worktree read or written (sandbox review M2).
 */

type Call = { readonly name: string; readonly input: Record<string, unknown> };

/** Like the AI SDK: the tool calls of one step all start at once (Promise.all); then a final answer. */
class ConcurrentAiClient implements AiClient {
  toolResults: unknown[] = [];
  constructor(private readonly calls: readonly Call[]) {}

  async generate(request: AiRequest): Promise<AiResponse> {
    this.toolResults = await Promise.all(
      this.calls.map((call) => {
        const tool = request.tools?.find((t) => t.name === call.name);
        if (!tool) throw new Error(`no tool ${call.name}`);
        return tool.execute(call.input);
      }),
    );
    return { text: 'Done.', steps: 2, toolCalls: this.calls.map((c) => ({ name: c.name, input: c.input })) };
  }
}

describe('the built-in agent’s tool calls and a path swapped under them', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const dir = async (name: string): Promise<string> => {
    const made = await tempDir(name);
    dirs.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  const agent = (ai: AiClient, beforeOpen?: (path: string) => Promise<void>) =>
    new LoopAgent(ai, new ChildProcessShellExecutor(), new EnvironmentSecretStore({}, AI_PROVIDERS), 20, 30_000, { beforeOpen });

  it('runs the tool calls of one step one after the other: a file tool starts once the command before it has ended', async () => {
    const worktree = await dir('loop-order');
    const seenAtOpen: string[] = [];
    const ai = new ConcurrentAiClient([
      // The command's window: a file tool running alongside it would see `start` without `end`.
      { name: 'run_command', input: { command: 'echo start > marker; sleep 0.5; echo end >> marker' } },
      { name: 'write_file', input: { path: 'out.txt', content: 'written' } },
      { name: 'read_file', input: { path: 'marker' } },
    ]);
    const outcome = await agent(ai, async () => {
      seenAtOpen.push(await readFile(join(worktree, 'marker'), 'utf8').catch(() => 'no marker'));
    }).run(contractJob('Race the tools'), worktree, new AbortController().signal);
    expect(outcome.ok, String(outcome.error)).to.equal(true);
    expect(ai.toolResults[0]).to.include({ exitCode: 0 });
    expect(ai.toolResults.slice(1)).to.deep.equal([{ written: 'out.txt' }, 'start\nend\n']);
    expect(seenAtOpen).to.deep.equal(['start\nend\n', 'start\nend\n']);
  });

  describe('a directory swapped for a link to outside between the check and the open', () => {
    let worktree: string;
    let outside: string;
    /** Swaps the worktree's `sub` for a link to `outside` once a tool is about to open it. */
    const swapSub = async (path: string): Promise<void> => {
      if (path !== join(worktree, 'sub')) return;
      await rename(join(worktree, 'sub'), join(worktree, 'sub-before'));
      await symlink(outside, join(worktree, 'sub'));
    };
    beforeEach(async () => {
      worktree = await dir('loop-swap');
      outside = await dir('loop-swap-outside');
      await mkdir(join(worktree, 'sub'));
      await writeFile(join(worktree, 'sub', 'secret.txt'), 'inside');
      await writeFile(join(outside, 'secret.txt'), 'outside-secret');
    });

    for (const call of [
      { name: 'write_file', input: { path: 'sub/new.txt', content: 'escaped' } },
      { name: 'read_file', input: { path: 'sub/secret.txt' } },
      { name: 'list_files', input: { path: 'sub' } },
    ]) {
      it(`${call.name} fails, reading or writing nothing outside`, async () => {
        const ai = new ConcurrentAiClient([call]);
        await agent(ai, swapSub).run(contractJob('Swap a directory'), worktree, new AbortController().signal);
        expect(ai.toolResults).to.deep.equal([{ error: `${String(call.input.path)} is outside the repository` }]);
        expect((await readdir(outside)).sort()).to.deep.equal(['secret.txt']);
        expect(await readFile(join(outside, 'secret.txt'), 'utf8')).to.equal('outside-secret');
      });
    }
  });
});
