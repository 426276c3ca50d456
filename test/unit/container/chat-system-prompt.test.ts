import { expect } from 'chai';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemPromptOf } from '../../../src/container/bindings/chat-bindings.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';

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

  it('gives the default prompt, saying nothing, when the default file is absent', async () => {
    const logger = new RecordingLogger();
    const file = join(await tempDir('prompt-default'), 'CHAT_SYSTEM_PROMPT.md');
    const prompt = systemPromptOf({ historyTurns: 20, maxSteps: 5, albumSettleMs: 1500, systemPromptFile: file, systemPromptFileGiven: false }, logger, 0);
    expect(await prompt()).to.equal('You are a helpful assistant.');
    expect(warnings(logger)).to.deep.equal([]);
  });
});
