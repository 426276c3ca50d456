import { type FileHandle, open } from 'node:fs/promises';
import type { JournalFs } from '../../src/adapters/intake/file-intake-journal.js';

/**
 * A disk that fills up when told (FileIntakeJournal's file system seam): while `full`, every write
 * to a file it opened fails with ENOSPC, as on a full disk; the rest is node:fs.
 */
export const fillingDisk = (): { readonly fs: Pick<JournalFs, 'open'>; full: boolean } => {
  const disk = {
    full: false,
    fs: {
      open: (async (...args: Parameters<typeof open>) => {
        const handle = await open(...args);
        return new Proxy(handle, {
          get: (target, name) => {
            if (name === 'write' && disk.full)
              return async () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
            const value = Reflect.get(target, name, target) as unknown;
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }) as FileHandle;
      }) as typeof open,
    },
  };
  return disk;
};
