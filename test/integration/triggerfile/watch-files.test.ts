import { mkdir, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { watchFiles } from '../../../src/adapters/triggerfile/watch-files.js';
import { tempDir } from '../../support/gateway-process.js';
import { waitFor } from '../../support/http.js';

describe('watchFiles (the configuration files, on the real file system)', () => {
  // Each test watches a file of its own written before the watch began: only what the test does
  // after that can count as a change. One write may be seen as several changes (a truncation, then
  // the data, further apart than the debounce on a loaded machine): at least one is what matters.
  it('sees a file written in place', async () => {
    const dir = await tempDir('watch-plain');
    const file = join(dir, 'TRIGGERS.json');
    await writeFile(file, '[]');
    let changes = 0;
    const stop = watchFiles([file], () => changes++, 20);
    try {
      await writeFile(file, '[ ]');
      await waitFor(() => changes >= 1, 15_000, 'the write');
    } finally {
      stop();
    }
  });

  it('sees a file replaced by rename, as editors save', async () => {
    const dir = await tempDir('watch-rename');
    const file = join(dir, 'TRIGGERS.json');
    await writeFile(file, '[]');
    // The new version is written before the watch begins: only the rename can be seen.
    await writeFile(join(dir, 'TRIGGERS.json.tmp'), '[  ]');
    let changes = 0;
    const stop = watchFiles([file], () => changes++, 20);
    try {
      await rename(join(dir, 'TRIGGERS.json.tmp'), file);
      await waitFor(() => changes >= 1, 15_000, 'the rename');
    } finally {
      stop();
    }
  });

  it('sees a Kubernetes ConfigMap update: the ..data link swapped to a new directory, the file itself untouched', async () => {
    const dir = await tempDir('watch-configmap');
    // The layout the kubelet makes: TRIGGERS.json → ..data/TRIGGERS.json, ..data → ..<timestamp>.
    await mkdir(join(dir, '..2026_11_30_01'));
    await writeFile(join(dir, '..2026_11_30_01', 'TRIGGERS.json'), '[]');
    await symlink('..2026_11_30_01', join(dir, '..data'));
    await symlink('..data/TRIGGERS.json', join(dir, 'TRIGGERS.json'));
    let changes = 0;
    const stop = watchFiles([join(dir, 'TRIGGERS.json')], () => changes++, 20);
    try {
      // Its update: the new version in a directory of its own, then ..data swapped by rename.
      await mkdir(join(dir, '..2026_11_30_02'));
      await writeFile(join(dir, '..2026_11_30_02', 'TRIGGERS.json'), '[ ]');
      await symlink('..2026_11_30_02', join(dir, '..data_tmp'));
      await rename(join(dir, '..data_tmp'), join(dir, '..data'));
      await waitFor(() => changes >= 1, 15_000, 'the ConfigMap update');
    } finally {
      stop();
    }
  });
  describe('a file that is a symbolic link to one elsewhere (schedules attacker pass)', () => {
    /** `config/CRONS.json` → `release-1/CRONS.json`, both in a directory of the test's own. */
    const linked = async (label: string) => {
      const dir = await tempDir(label);
      await mkdir(join(dir, 'config'));
      await mkdir(join(dir, 'release-1'));
      await writeFile(join(dir, 'release-1', 'CRONS.json'), '[]');
      await symlink(join(dir, 'release-1', 'CRONS.json'), join(dir, 'config', 'CRONS.json'));
      return { dir, file: join(dir, 'config', 'CRONS.json') };
    };

    it('sees the file it points at written in place, and replaced by rename', async () => {
      const { dir, file } = await linked('watch-link');
      await writeFile(join(dir, 'release-1', 'CRONS.json.tmp'), '[  ]');
      let changes = 0;
      const stop = watchFiles([file], () => changes++, 20);
      try {
        await writeFile(join(dir, 'release-1', 'CRONS.json'), '[ ]');
        await waitFor(() => changes >= 1, 15_000, 'the write where the link points');
        const seen = changes;
        await rename(join(dir, 'release-1', 'CRONS.json.tmp'), join(dir, 'release-1', 'CRONS.json'));
        await waitFor(() => changes > seen, 15_000, 'the rename where the link points');
      } finally {
        stop();
      }
    });

    it('follows the link pointed elsewhere: a later write there is seen', async () => {
      const { dir, file } = await linked('watch-relink');
      await mkdir(join(dir, 'release-2'));
      await writeFile(join(dir, 'release-2', 'CRONS.json'), '[]');
      let changes = 0;
      const stop = watchFiles([file], () => changes++, 20);
      try {
        await unlink(file);
        await symlink(join(dir, 'release-2', 'CRONS.json'), file);
        await waitFor(() => changes >= 1, 15_000, 'the link pointed elsewhere');
        const seen = changes;
        await writeFile(join(dir, 'release-2', 'CRONS.json'), '[ ]');
        await waitFor(() => changes > seen, 15_000, 'the write where the link now points');
      } finally {
        stop();
      }
    });
  });
});
