/**
 * `work`, or a failure naming `what` when it has not settled within `ms`: a statement or a call
 * left unanswered fails its test clearly instead of at mocha's timeout. A bound on a wait for an
 * observable end, never a wait to prove that nothing happened.
 */
export const within = <T>(ms: number, what: string, work: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`TIMEOUT: ${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
};
