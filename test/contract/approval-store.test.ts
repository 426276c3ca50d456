import { MikroOrmApprovalStore } from '../../src/adapters/persistence/mikro-orm-approval-store.js';
import { AnnouncingApprovalStore } from '../../src/application/approvals/approvals-in-chat.js';
import { InMemoryApprovalStore } from '../fakes/in-memory-approval-store.js';
import { openTestDatabase } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeApprovalStoreContract } from './approval-store.contract.js';

describeApprovalStoreContract('in-memory fake', async () => ({ store: new InMemoryApprovalStore(), close: async () => undefined }));

describeApprovalStoreContract('MikroORM on PGlite', async () => {
  const opened = await openTestDatabase('pglite', 'approvals');
  return { store: new MikroOrmApprovalStore(opened.database), close: () => opened.close() };
});

// The service's store: the decorator asking the approval chats, over MikroORM (container/bindings/trigger-bindings.ts).
describeApprovalStoreContract('announcing decorator (approval chats) over MikroORM on PGlite', async () => {
  const opened = await openTestDatabase('pglite', 'approvals-announcing');
  const announce = { execute: async () => undefined };
  return { store: new AnnouncingApprovalStore(new MikroOrmApprovalStore(opened.database), announce), close: () => opened.close() };
});

describeWithPostgres('ApprovalStore on PostgreSQL', () => {
  describeApprovalStoreContract('MikroORM on PostgreSQL (two clients)', async () => {
    const opened = await openTestDatabase('postgresql', 'approvals');
    return { store: new MikroOrmApprovalStore(opened.database), replica: new MikroOrmApprovalStore(opened.replica), close: () => opened.close() };
  });
});
