import { isAbsolute, relative } from 'node:path';

/** How a configuration file is named in problems: as the operator wrote it, relative to the working directory, or in full when outside it. */
export const shownPath = (path: string, cwd: string = process.cwd()): string => {
  const inside = relative(cwd, path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? path : inside;
};
