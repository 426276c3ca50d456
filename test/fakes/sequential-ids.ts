import { uuidOfName } from '../../src/adapters/system/random-uuid-generator.js';
import type { IdGenerator } from '../../src/ports/id-generator.js';

export class SequentialIds implements IdGenerator {
  #n = 0;
  next(): string {
    this.#n++;
    return `00000000-0000-4000-8000-${String(this.#n).padStart(12, '0')}`;
  }

  named(name: string): string {
    return uuidOfName(name);
  }
}
