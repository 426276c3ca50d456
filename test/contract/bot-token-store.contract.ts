import { expect } from 'chai';
import type { BotTokenStore } from '../../src/ports/bot-token-store.js';

export interface BotTokenStoreHarness {
  /**
   * A new store on the shared storage with `configured` as MESSAGING_BOT_TOKEN: each call is
   * another instance, as after a restart or on another replica.
   */
  store(configured: string | undefined): BotTokenStore;
  /** Forgets every registration between tests. */
  reset(): Promise<void>;
  /** False for a store of a channel without registration (its token only ever the configured one): `register` refuses. */
  readonly registers?: boolean;
  close(): Promise<void>;
}

/** The behaviour every BotTokenStore adapter must have. */
export const describeBotTokenStoreContract = (name: string, open: () => Promise<BotTokenStoreHarness>): void => {
  describe(`BotTokenStore contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: BotTokenStoreHarness;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => harness.reset());
    after(async () => harness?.close());

    it('has the configured token and no secret before any registration', async () => {
      const store = harness.store('1:configured');
      expect(await store.current()).to.equal('1:configured');
      expect(await store.webhookSecret()).to.equal(undefined);
    });

    it('gives the stored webhook secret, or stores the generated one; of callers at once on several instances, all get the first stored (pending for a store without registration)', async function () {
      if (harness.registers === false) return this.skip();
      const stores = [harness.store('1:configured'), harness.store('1:configured'), harness.store('1:configured')];
      let made = 0;
      const secrets = await Promise.all(stores.map((store) => store.secretFor(() => `generated-${++made}`)));
      expect(new Set(secrets).size, JSON.stringify(secrets)).to.equal(1);
      expect(secrets[0]).to.match(/^generated-[123]$/);
      expect(await harness.store('1:configured').webhookSecret()).to.equal(secrets[0]);
      expect(await harness.store('1:configured').current(), 'the token is left as it was').to.equal('1:configured');
      // a registration that keeps it, and one that drops it (a configured secret in force), as before
      await stores[0].register('2:registered', secrets[0]);
      expect(await harness.store('1:configured').secretFor(() => 'another')).to.equal(secrets[0]);
      await stores[0].register('2:registered', undefined);
      expect(await harness.store('1:configured').secretFor(() => 'after-drop')).to.equal('after-drop');
    });

    it('keeps the address a registration gave, for fresh instances too, until a registration gives another (pending for a store without registration)', async function () {
      if (harness.registers === false) return this.skip();
      const store = harness.store('1:configured');
      expect(await store.webhookUrl()).to.equal(undefined);
      await store.register('2:registered', 's1', 'https://gw.example.com/api/messaging/webhook');
      expect(await harness.store('1:configured').webhookUrl()).to.equal('https://gw.example.com/api/messaging/webhook');
      await store.register('3:registered', 's2');
      expect(await harness.store('1:configured').webhookUrl(), 'kept when none is given').to.equal('https://gw.example.com/api/messaging/webhook');
      await store.register('4:registered', 's3', 'https://gw.example.com/prefix/api/messaging/webhook');
      expect(await harness.store('1:configured').webhookUrl()).to.equal('https://gw.example.com/prefix/api/messaging/webhook');
    });

    it('refuses a registration where the channel has none, keeping the configured token (pending for a store that takes registrations)', async function () {
      if (harness.registers !== false) return this.skip();
      const store = harness.store('xoxb-configured');
      let refused = false;
      await store.register('xoxb-other', 'secret').catch(() => (refused = true));
      expect(refused).to.equal(true);
      expect(await store.current()).to.equal('xoxb-configured');
      expect(await store.webhookSecret()).to.equal(undefined);
    });

    it('has no token and no secret when none is configured nor registered', async () => {
      const store = harness.store(undefined);
      expect(await store.current()).to.equal(undefined);
      expect(await store.webhookSecret()).to.equal(undefined);
    });

    it('answers with a registered token and its secret at once, over the configured token (pending for a channel without registration)', async function () {
      if (harness.registers === false) return this.skip();
      const store = harness.store('1:configured');
      expect(await store.current()).to.equal('1:configured');
      await store.register('123456:ABC-def_GHI', 'generated_secret-1');
      expect(await store.current()).to.equal('123456:ABC-def_GHI');
      expect(await store.webhookSecret()).to.equal('generated_secret-1');
    });

    it('keeps a registration for a fresh instance too (a restart, another replica) (pending for a channel without registration)', async function () {
      if (harness.registers === false) return this.skip();
      await harness.store('1:configured').register('2:registered', 'generated_secret-1');
      const fresh = harness.store('1:configured');
      expect(await fresh.current()).to.equal('2:registered');
      expect(await fresh.webhookSecret()).to.equal('generated_secret-1');
    });

    it('a registration without a secret of its own drops the secret stored before (pending for a channel without registration)', async function () {
      if (harness.registers === false) return this.skip();
      const store = harness.store(undefined);
      await store.register('2:registered', 'generated_secret-1');
      await store.register('3:again', undefined);
      expect(await store.current()).to.equal('3:again');
      expect(await store.webhookSecret()).to.equal(undefined);
      const fresh = harness.store(undefined);
      expect(await fresh.current()).to.equal('3:again');
      expect(await fresh.webhookSecret()).to.equal(undefined);
    });

    it('never pairs one registration’s token with another’s secret, registrations racing on several instances (pending for a channel without registration)', async function () {
      if (harness.registers === false) return this.skip();
      await Promise.all(Array.from({ length: 10 }, (_, i) => harness.store(undefined).register(`${i}:token`, `secret-${i}`)));
      const fresh = harness.store(undefined);
      const token = await fresh.current();
      expect(token).to.match(/^\d:token$/);
      expect(await fresh.webhookSecret()).to.equal(`secret-${token!.split(':')[0]}`);
    });
  });
};
