import type { StorageFigures, TableSize } from '../../src/ports/storage-figures.js';

/** Table sizes as set by a test: each added row counts 100 bytes on top of 8 KiB per table. */
export class InMemoryStorageFigures implements StorageFigures {
  readonly #rows = new Map<string, number>();

  constructor(readonly tables: readonly string[]) {
    for (const table of tables) this.#rows.set(table, 0);
  }

  addRows(table: string, count: number): void {
    this.#rows.set(table, (this.#rows.get(table) ?? 0) + count);
  }

  async tableSizes(): Promise<TableSize[]> {
    return this.tables.map((table) => {
      const rows = this.#rows.get(table) ?? 0;
      return { table, rowsEstimate: rows, bytes: 8192 + rows * 100 };
    });
  }
}
