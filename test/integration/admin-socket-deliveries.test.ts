import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import { AdminSocketClient } from '../../src/adapters/http/admin-socket/admin-socket-client.js';
import { AdminSocketServer } from '../../src/adapters/http/admin-socket/admin-socket-server.js';
import type { KeyAdministration } from '../../src/application/auth/api-key-administration.js';
import { DeliveryHistory } from '../../src/application/triggers/delivery-history.js';
import { deliveryListQuery } from '../../src/cli/deliveries-command.js';
import { InMemoryActionRunRepository } from '../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../fakes/in-memory-inbound-request-store.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { tempDir } from '../support/gateway-process.js';

/*
 * `deliveries list` through the running server: the CLI's options become the admin socket's
 * query, which the server reads as the admin page does. Paging with the last line's RECEIVED
 * time and ID lists every delivery once, also those received in one millisecond.
 */

const notUsedHere = async (): Promise<never> => {
  throw new Error('not used by these tests');
};
const NO_KEYS: KeyAdministration = { create: notUsedHere, list: async () => [], revoke: notUsedHere };

describe('admin socket: deliveries list pages', () => {
  let server: AdminSocketServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('lists every delivery exactly once across pages of --before and --before-id, many of them received in one millisecond', async () => {
    const requests = new InMemoryInboundRequestStore();
    const same = new Date('2026-11-24T10:00:00.123Z');
    const times = [new Date('2026-11-24T10:00:00.124Z'), ...Array.from({ length: 9 }, () => same), new Date('2026-11-24T10:00:00.122Z')];
    for (const receivedAt of times)
      await requests.record({ id: randomUUID(), watchPath: '/webhook', receivedAt, request: '{}', triggers: ['deploy'], runs: [], replayOf: null });
    const socket = join(await tempDir('admin-socket-deliveries'), 'admin.sock');
    server = await AdminSocketServer.listen(
      socket,
      NO_KEYS,
      {
        setAdminPassword: notUsedHere,
        migrations: notUsedHere,
        reload: notUsedHere,
        deliveries: new DeliveryHistory(requests, new InMemoryActionRunRepository()),
        replay: notUsedHere,
      },
      new RecordingLogger(),
    );
    const client = new AdminSocketClient(socket);
    const all = (await client.deliveries(new URLSearchParams(deliveryListQuery({ limit: '500' })).toString())).map((row) => String(row.id));
    expect(all).to.have.length(times.length);
    expect(new Set(all).size).to.equal(times.length);
    const paged: string[] = [];
    let page = await client.deliveries(new URLSearchParams(deliveryListQuery({ limit: '2' })).toString());
    while (page.length > 0) {
      paged.push(...page.map((row) => String(row.id)));
      const last = page.at(-1)!;
      const options = { limit: '2', before: String(last.receivedAt), 'before-id': String(last.id) };
      page = await client.deliveries(new URLSearchParams(deliveryListQuery(options)).toString());
    }
    expect(paged).to.deep.equal(all);
  });
});
