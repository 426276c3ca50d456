import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemPromptOf } from '../../../src/container/bindings/chat-bindings.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';
import { within } from '../../support/time-limit.js';

describe("the chat's system prompt file", () => {
  const warnings = (logger: RecordingLogger) => logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message);

  it('follows edits; a file that goes away keeps the prompt read last, said once until it is back', async () => {
    const file = join(await tempDir('prompt'), 'PROMPT.md');
    await writeFile(file, '  Be terse.\n');
    const logger = new RecordingLogger();
    const prompt = systemPromptOf({ historyTurns: 20, maxSteps: 5, albumSettleMs: 1500, systemPromptFile: file, systemPromptFileGiven: true }, logger, 0);
    expect(await prompt()).to.equal('Be terse.');
    await rm(file);
    expect(await prompt()).to.equal('Be terse.');
    expect(await prompt()).to.equal('Be terse.');
    expect(warnings(logger)).to.deep.equal(['chat system prompt file cannot be read (CHAT_SYSTEM_PROMPT_FILE); the prompt read last is kept']);
    await writeFile(file, 'Answer in French.');
    expect(await prompt()).to.equal('Answer in French.');
    await writeFile(file, '\n');
    expect(await prompt()).to.equal('You are a helpful assistant.');
  });

  it('keeps the prompt read last, and says so, when the file becomes a FIFO or a device (a read waited for good: every chat answer hung) or grows past 1 MiB', async () => {
    const dir = await tempDir('prompt-special');
    const file = join(dir, 'PROMPT.md');
    await writeFile(file, 'Be terse.');
    const logger = new RecordingLogger();
    const prompt = systemPromptOf({ historyTurns: 20, maxSteps: 5, albumSettleMs: 1500, systemPromptFile: file, systemPromptFileGiven: true }, logger, 0);
    expect(await prompt()).to.equal('Be terse.');
    await rm(file);
    execFileSync('mkfifo', [file]);
    expect(await within(5_000, 'the prompt with a FIFO in its place', prompt())).to.equal('Be terse.');
    expect(warnings(logger)).to.deep.equal(['chat system prompt file cannot be read (CHAT_SYSTEM_PROMPT_FILE); the prompt read last is kept']);
    const device = systemPromptOf(
      { historyTurns: 20, maxSteps: 5, albumSettleMs: 1500, systemPromptFile: '/dev/zero', systemPromptFileGiven: true },
      logger,
      0,
    );
    expect(await within(5_000, 'the prompt from /dev/zero', device())).to.equal('You are a helpful assistant.');
    await rm(file);
    await writeFile(file, 'Answer in French.');
    expect(await prompt()).to.equal('Answer in French.');
    await truncate(file, 1024 * 1024 + 1);
    expect(await prompt()).to.equal('Answer in French.');
    expect(logger.entries.filter((entry) => entry.level === 'warn').map((entry) => (entry.fields as { code?: string }).code)).to.deep.equal([
      'ENOTREG',
      // /dev/zero is read as far as the bound, as a file is.
      'EFBIG',
      'EFBIG',
    ]);
  });

  it('gives the default prompt, saying nothing, when the default file is absent', async () => {
    const logger = new RecordingLogger();
    const file = join(await tempDir('prompt-default'), 'CHAT_SYSTEM_PROMPT.md');
    const prompt = systemPromptOf({ historyTurns: 20, maxSteps: 5, albumSettleMs: 1500, systemPromptFile: file, systemPromptFileGiven: false }, logger, 0);
    expect(await prompt()).to.equal('You are a helpful assistant.');
    expect(warnings(logger)).to.deep.equal([]);
  });
});
