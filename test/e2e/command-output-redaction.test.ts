import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, runningServerAdmin, send, waitFor } from '../support/http.js';

/*
 * The output of a trigger's command is recorded (the run page shows it) with the values of the
 * COMMAND_ENV variables and the service's own credentials redacted, on the built server: a
 * command that prints them leaves the redaction marker in its record, not the value.
 */

const DEPLOY_TOKEN = 'dpl-e2e-3f9a1c77b2';
const WEBHOOK_SECRET = 'whsec-e2e-service-credential-81d2';

describe('e2e: recorded command output is redacted of COMMAND_ENV values and service credentials', function () {
  this.timeout(120_000);
  let gateway: GatewayProcess | undefined;
  let env: Record<string, string>;

  before(async () => {
    const dir = await tempDir('command-redaction');
    await writeFile(
      join(dir, 'TRIGGERS.json'),
      JSON.stringify([
        {
          name: 'deploy',
          watch_path: '/webhook',
          enabled: true,
          // The service's credential is not in the command's environment; a command can still come by it (here: written in the file).
          actions: [{ type: 'command', command: `printf 'token=%s\\n' "$AGW_E2E_DEPLOY_TOKEN"; echo 'secret ${WEBHOOK_SECRET}'; echo done` }],
        },
      ]),
    );
    env = {
      DATA_DIR: await migratedDataDir('command-redaction-data'),
      TRIGGERS_FILE: join(dir, 'TRIGGERS.json'),
      TRIGGERS_DIR: dir,
      COMMAND_ENV: 'AGW_E2E_DEPLOY_TOKEN',
      AGW_E2E_DEPLOY_TOKEN: DEPLOY_TOKEN,
      CODEHOST_WEBHOOK_SECRET: WEBHOOK_SECRET,
    };
    gateway = await startGateway(env);
  });
  after(() => gateway?.stop());

  it('records what the command printed with [redacted NAME] in place of each value', async () => {
    const key = await createKey(env);
    const response = await send(`${gateway!.url}/api/webhook`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ run: 1 }),
    });
    expect(response.status).to.equal(200);
    const admin = await runningServerAdmin(env);
    expect(admin, 'the server answers on its admin socket').to.not.equal(undefined);
    const action = await waitFor(
      async () => {
        const [row] = (await admin!.deliveries('')) as unknown as Array<{ id: string }>;
        if (!row) return undefined;
        const shown = (await admin!.delivery(row.id)) as unknown as { runs: Array<{ actions: Array<{ status: string; detail: { output?: string } }> }> };
        const recorded = shown.runs[0]?.actions[0];
        return recorded?.status === 'succeeded' ? recorded : undefined;
      },
      30_000,
      'the command action recorded',
    );
    expect(action.detail.output).to.equal('token=[redacted AGW_E2E_DEPLOY_TOKEN]\nsecret [redacted CODEHOST_WEBHOOK_SECRET]\ndone\n');
  });
});
