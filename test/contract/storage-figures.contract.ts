import { expect } from 'chai';
import type { StorageFigures } from '../../src/ports/storage-figures.js';

export interface StorageFiguresHarness {
  readonly figures: StorageFigures;
  /** The tables the adapter reports on, in its order; `absent` is one of them that does not exist. */
  readonly tables: readonly string[];
  readonly absent: string;
  /** Adds `count` rows to `settings` and brings the statistics up to date (ANALYZE on a database). */
  addSettingsRows(count: number): Promise<void>;
  close(): Promise<void>;
}

/** The behaviour every StorageFigures adapter must have. */
export const describeStorageFiguresContract = (name: string, open: () => Promise<StorageFiguresHarness>): void => {
  describe(`StorageFigures contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: StorageFiguresHarness;
    beforeEach(async () => {
      harness = await open();
    });
    afterEach(async () => harness?.close());

    it('lists every existing table in its fixed order, with its bytes and a row estimate that is null or a whole number', async () => {
      const sizes = await harness.figures.tableSizes();
      expect(sizes.map((s) => s.table)).to.deep.equal(harness.tables.filter((t) => t !== harness.absent));
      for (const size of sizes) {
        expect(size.bytes, size.table).to.be.a('number').and.to.be.above(0);
        if (size.rowsEstimate !== null) expect(Number.isInteger(size.rowsEstimate) && size.rowsEstimate >= 0, size.table).to.equal(true);
      }
    });

    it('estimates the rows of a table once its statistics are current, and its bytes grow with them', async () => {
      const before = (await harness.figures.tableSizes()).find((s) => s.table === 'settings')!;
      await harness.addSettingsRows(500);
      const after = (await harness.figures.tableSizes()).find((s) => s.table === 'settings')!;
      expect(after.rowsEstimate).to.equal(500);
      expect(after.bytes).to.be.above(before.bytes);
    });
  });
};
