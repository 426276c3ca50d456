/** The account `nobody`: an owner other than root, for tests of files another account owns. */
export const NOBODY = 65534;

/**
 * `it` where the tests run as root (this machine and CI do), which alone can give a directory to
 * another account and run a process as it; elsewhere the test is pending, with its reason.
 */
export const itAsRoot: (title: string, fn: () => Promise<void>) => void =
  process.getuid?.() === 0 ? (title, fn) => void it(title, fn) : (title, fn) => void it.skip(`${title} — pending: the tests do not run as root`, fn);
