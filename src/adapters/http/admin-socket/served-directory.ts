import { realpath, stat } from 'node:fs/promises';

/**
 * The data directory a server's admin socket serves, as the server reports it (`/status`): its
 * real path, to name it, and its device and inode (`dev:ino`), which tell it from a copy however
 * it is reached (a symbolic link to it is no copy). The CLI compares it with the DATA_DIR it was
 * given: a copy of DATA_DIR made with the socket (a hard link to it, `cp -al`) reaches the
 * original's server.
 */
export interface ServedDirectory {
  readonly path: string;
  readonly id: string;
}

export const servedDirectory = async (dir: string): Promise<ServedDirectory> => {
  const { dev, ino } = await stat(dir);
  return { path: await realpath(dir), id: `${dev}:${ino}` };
};
