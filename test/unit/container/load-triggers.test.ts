import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadTriggers } from '../../../src/container/load-triggers.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';

describe('loadTriggers', () => {
  it('logs at warn, once per trigger, field and header, each header no trigger ever sees, and starts all the same', async () => {
    const dir = await tempDir('load-triggers');
    const file = join(dir, 'TRIGGERS.json');
    await writeFile(
      file,
      JSON.stringify([
        {
          name: 'signed',
          watch_path: '/webhook',
          enabled: true,
          when: { 'headers.x-hub-signature-256': { prefix: 'sha256=' } },
          actions: [{ type: 'command', command: 'echo {{headers.x-api-key}} {{headers.x-api-key}} {{headers.x-github-event}}' }],
        },
        {
          name: 'chat',
          watch_path: '/messaging/telegram/webhook',
          enabled: true,
          when: { 'body.message.chat.id': { equals: 1 } },
          actions: [{ type: 'command', command: 'echo {{headers.x-telegram-bot-api-secret-token}}' }],
        },
      ]),
    );
    const logger = new RecordingLogger();
    const triggers = await loadTriggers({ triggersFile: file, triggersDir: dir } as never, logger);
    expect(triggers.map((trigger) => trigger.name)).to.deep.equal(['signed', 'chat']);
    const warned = logger.entries.filter((entry) => entry.level === 'warn');
    expect(warned.map((entry) => entry.fields)).to.deep.equal([
      { file, trigger: 'signed', field: 'when.headers.x-hub-signature-256', header: 'x-hub-signature-256' },
      { file, trigger: 'signed', field: 'actions[0].command', header: 'x-api-key' },
      { file, trigger: 'chat', field: 'actions[0].command', header: 'x-telegram-bot-api-secret-token' },
    ]);
    expect(warned[1].message).to.equal(
      `${file}: trigger #0 "signed": actions[0].command: {{headers.x-api-key}} names the header x-api-key, which a trigger never sees: ` +
        'it is treated as a credential and never given to templates or "when", so the token always renders as the empty string (docs/triggers.md, "Template tokens")',
    );
  });
});
