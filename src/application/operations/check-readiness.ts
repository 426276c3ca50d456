import type { Logger } from '../../ports/logger.js';
import type { ReadinessCheck } from '../../ports/readiness-check.js';

export interface Readiness {
  readonly ready: boolean;
  /** `ok` or `unavailable` per dependency; causes go to the log only. */
  readonly checks: Readonly<Record<string, 'ok' | 'unavailable'>>;
}

/** How long a dependency may take to answer before it counts as unavailable. */
export const READINESS_TIMEOUT_MS = 2000;

/** Asks every dependency at once, each within a short time limit (`timeoutMs`, default 2 s). */
export class CheckReadiness {
  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly logger: Logger,
    private readonly timeoutMs: number = READINESS_TIMEOUT_MS,
  ) {}

  async execute(): Promise<Readiness> {
    const results = await Promise.all(
      this.checks.map(async (check) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check.check(),
            new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs))),
          ]);
          return [check.name, 'ok'] as const;
        } catch (error) {
          this.logger.warn({ err: error, check: check.name }, 'readiness check failed');
          return [check.name, 'unavailable'] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return { ready: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
  }
}
