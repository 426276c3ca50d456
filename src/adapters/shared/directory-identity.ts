import { realpath, stat } from 'node:fs/promises';

/**
 * A directory as the data directory's lock file records it and as a server's admin socket
 * reports the directory it serves (`/status`): its real path, to name it, and its device and
 * inode (`dev:ino`), which tell it from a copy however it is reached (a symbolic link to it is no
 * copy). The CLI compares the two with those of the DATA_DIR it was given: a copy of DATA_DIR made
 * with its lock file or its socket (`cp -al`) reaches the original's server. One function for
 * both, so that they always agree.
 */
export interface DirectoryIdentity {
  readonly path: string;
  readonly id: string;
}

/** `dir`'s identity (DirectoryIdentity). @throws what stat or realpath throw (a missing directory: ENOENT). */
export const directoryIdentity = async (dir: string): Promise<DirectoryIdentity> => {
  const { dev, ino } = await stat(dir);
  return { path: await realpath(dir), id: `${dev}:${ino}` };
};
