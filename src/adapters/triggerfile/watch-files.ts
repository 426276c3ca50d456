import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** The link a Kubernetes ConfigMap volume swaps to update its files (…/TRIGGERS.json → ..data/TRIGGERS.json). */
const CONFIGMAP_DATA = '..data';

/**
 * Calls `onChange` once after any of `files` was written, created, renamed or removed, when
 * no further change came for `debounceMs` (an editor's save is several events). The files'
 * directories are watched, not the files: a file replaced by rename (how editors and
 * ConfigMaps save) or created later is still seen. A directory that does not exist is skipped.
 * Returns the function that stops watching.
 */
export const watchFiles = (files: readonly string[], onChange: () => void, debounceMs: number): (() => void) => {
  const names = new Map<string, Set<string>>();
  for (const file of files) {
    const dir = dirname(file);
    const set = names.get(dir) ?? new Set<string>();
    set.add(basename(file));
    names.set(dir, set);
  }
  let pending: NodeJS.Timeout | undefined;
  const changed = (): void => {
    if (pending) clearTimeout(pending);
    pending = setTimeout(() => {
      pending = undefined;
      onChange();
    }, debounceMs);
    pending.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const [dir, watched] of names) {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        // Some platforms give no name: any change in the directory counts. A Kubernetes
        // ConfigMap volume updates its files by swapping the `..data` link the files point
        // through: only that name changes.
        if (name === null || name === CONFIGMAP_DATA || watched.has(basename(String(name)))) changed();
      });
      watcher.on('error', () => undefined);
      watchers.push(watcher);
    } catch {
      // No such directory (yet): nothing to watch there.
    }
  }
  return () => {
    if (pending) clearTimeout(pending);
    for (const watcher of watchers) watcher.close();
  };
};
