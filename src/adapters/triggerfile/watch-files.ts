import { readlinkSync, realpathSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

/** The link a Kubernetes ConfigMap volume swaps to update its files (…/TRIGGERS.json → ..data/TRIGGERS.json). */
const CONFIGMAP_DATA = '..data';
/** Links followed at most from a file to what it points at (as the kernel's own limit). */
const MAX_LINKS = 40;

/**
 * Where a change of `file` can show: the file's own path, each link on the way to what it points
 * at, and that, each as its directory and name. A file that is a link to one elsewhere
 * (`config/CRONS.json` → `/srv/release/CRONS.json`) changes where it points, unseen in its own
 * directory.
 */
const placesOf = (file: string): Array<[string, string]> => {
  const places: Array<[string, string]> = [[dirname(file), basename(file)]];
  let at = file;
  for (let hop = 0; hop < MAX_LINKS; hop++) {
    let target: string;
    try {
      target = readlinkSync(at);
    } catch {
      // Not a link (or gone): the end of the chain.
      break;
    }
    at = resolve(dirname(at), target);
    places.push([dirname(at), basename(at)]);
  }
  try {
    // Links among the directories on the way (a ConfigMap's ..data): where the file really is.
    const real = realpathSync(file);
    places.push([dirname(real), basename(real)]);
  } catch {
    // Gone, or a dangling link: its own directory and the links' are watched.
  }
  return places;
};

/**
 * Calls `onChange` once after any of `files` was written, created, renamed or removed, when
 * no further change came for `debounceMs` (an editor's save is several events). The files'
 * directories are watched, not the files: a file replaced by rename (how editors and
 * ConfigMaps save) or created later is still seen. A file that is a symbolic link is watched
 * where it points too (looked up again after each change: a link pointed elsewhere is followed).
 * A directory that does not exist is skipped. Returns the function that stops watching.
 */
export const watchFiles = (files: readonly string[], onChange: () => void, debounceMs: number): (() => void) => {
  const watchers = new Map<string, { watcher: FSWatcher; names: Set<string> }>();
  let stopped = false;
  let pending: NodeJS.Timeout | undefined;
  const changed = (): void => {
    if (pending) clearTimeout(pending);
    pending = setTimeout(() => {
      pending = undefined;
      if (stopped) return;
      place();
      onChange();
    }, debounceMs);
    pending.unref();
  };
  /** Watches the directories where the files now are, and stops watching those where none is any more. */
  const place = (): void => {
    const names = new Map<string, Set<string>>();
    for (const file of files)
      for (const [dir, name] of placesOf(file)) {
        const set = names.get(dir) ?? new Set<string>();
        set.add(name);
        names.set(dir, set);
      }
    for (const [dir, watched] of watchers)
      if (!names.has(dir)) {
        watched.watcher.close();
        watchers.delete(dir);
      }
    for (const [dir, set] of names) {
      const known = watchers.get(dir);
      if (known !== undefined) {
        known.names.clear();
        for (const name of set) known.names.add(name);
        continue;
      }
      try {
        const watcher = watch(dir, { persistent: false }, (_event, name) => {
          // Some platforms give no name: any change in the directory counts. A Kubernetes
          // ConfigMap volume updates its files by swapping the `..data` link the files point
          // through: only that name changes.
          if (name === null || name === CONFIGMAP_DATA || set.has(basename(String(name)))) changed();
        });
        watcher.on('error', () => undefined);
        watchers.set(dir, { watcher, names: set });
      } catch {
        // No such directory (yet): nothing to watch there.
      }
    }
  };
  place();
  return () => {
    stopped = true;
    if (pending) clearTimeout(pending);
    for (const { watcher } of watchers.values()) watcher.close();
    watchers.clear();
  };
};
