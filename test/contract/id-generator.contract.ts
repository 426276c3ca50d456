import { expect } from 'chai';
import type { IdGenerator } from '../../src/ports/id-generator.js';

/** A UUID string as PostgreSQL's uuid column and the API's ids take it: lower-case hex in 8-4-4-4-12. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A version 4 UUID of the RFC 9562 variant. */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The behaviour every IdGenerator must have, the random one and the sequential one the unit
 * tests use, so that ids of the fake fit wherever the real ones go.
 */
export const describeIdGeneratorContract = (name: string, make: () => IdGenerator): void => {
  describe(`IdGenerator contract: ${name}`, () => {
    let ids: IdGenerator;
    beforeEach(() => {
      ids = make();
    });

    it('gives version 4 UUIDs in lower case', () => {
      for (let i = 0; i < 20; i++) expect(ids.next()).to.match(UUID_V4);
    });

    it('never gives the same id twice', () => {
      const given = Array.from({ length: 1000 }, () => ids.next());
      expect(new Set(given).size).to.equal(1000);
    });

    it('gives a name the same id on every call and in every instance (a redelivery after a restart finds its first delivery)', () => {
      const name = 'telegram:update:4242';
      expect(ids.named(name)).to.equal(ids.named(name));
      expect(make().named(name)).to.equal(ids.named(name));
    });

    it('gives a name the id the service has always given it (stored ids depend on it)', () => {
      // Changed, it would make a delivery redelivered across an upgrade look new.
      expect(ids.named('telegram:update:4242')).to.equal('e446fd75-482f-8c22-a702-19e812051547');
      expect(ids.named('slack:Ev0CONTRACT1')).to.equal('1bbeefd8-40fa-8bfb-95a5-927d07df9b39');
    });

    it('gives different names different ids, each a UUID, also for the empty name and names beyond ASCII', () => {
      const names = ['', 'a', 'A', 'a ', 'slack:Ev1', 'slack:Ev2', 'telegram:1', 'télégramme:🔑', 'x'.repeat(10_000)];
      const named = names.map((n) => ids.named(n));
      for (const id of named) expect(id).to.match(UUID);
      expect(new Set(named).size).to.equal(names.length);
    });

    it('never gives by name an id next gives: a named id is no version 4 UUID', () => {
      const given = new Set(Array.from({ length: 1000 }, () => ids.next()));
      for (const name of ['1', '2', 'slack:Ev1', '00000000-0000-4000-8000-000000000001']) {
        const id = ids.named(name);
        expect(given.has(id), name).to.equal(false);
        // a random v4 could be any v4: only another version can never be one
        expect(id, name).not.to.match(UUID_V4);
      }
    });
  });
};
