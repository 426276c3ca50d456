import { DomainError } from '../../domain/errors/domain-error.js';
import type { Timer } from '../../ports/timer.js';

export interface PasswordCheckSlotsOptions {
  /** Checks at once, across all networks. */
  readonly running: number;
  /** Networks that may wait for a check; past them a check is refused at once. */
  readonly waitingNetworks: number;
  /** How long a check waits for a slot before it is refused. */
  readonly waitMs: number;
}

/** A login refused, not counted: its network has one checked or waiting, or its wait ran out, or too many networks wait. */
export class LoginBusy extends DomainError {
  constructor() {
    super('rate_limited', 'Too many logins at once; try again in a moment');
    this.name = 'LoginBusy';
  }
}

interface Waiter {
  readonly grant: (granted: boolean) => void;
  readonly cancelTimer: () => void;
}

/**
 * At most `running` password checks at once. A slow hash (scrypt) runs on libuv's thread pool,
 * which file, DNS and zlib work shares: unbounded, many clients' logins would fill it. The line
 * for them is shared out by network (loginNetworkOf), not first come first served for every
 * attempt: a network has at most one check running or waiting (another of its attempts is
 * refused at once), and networks are served in the order they joined the line, so a flood from
 * one network delays a login from another by at most one check. A check waits at most `waitMs`;
 * a line of `waitingNetworks` networks is full. Refused (acquire resolves to undefined) rather
 * than held for long.
 */
export class PasswordCheckSlots {
  /** Networks whose check runs now. */
  readonly #running = new Set<string>();
  /** Networks waiting, in the order they came (a Map keeps it, and drops one that gave up at once). */
  readonly #waiting = new Map<string, Waiter>();

  constructor(
    private readonly options: PasswordCheckSlotsOptions,
    private readonly timer: Timer,
  ) {}

  /** A slot for `network`'s check, once its turn comes (its release is idempotent), or undefined when refused. */
  async acquire(network: string): Promise<(() => void) | undefined> {
    if (this.#running.has(network) || this.#waiting.has(network)) return undefined;
    if (this.#running.size < this.options.running) {
      this.#running.add(network);
    } else {
      if (this.#waiting.size >= this.options.waitingNetworks) return undefined;
      const granted = await new Promise<boolean>((resolve) => {
        const cancelTimer = this.timer.after(this.options.waitMs, () => {
          this.#waiting.delete(network);
          resolve(false);
        });
        this.#waiting.set(network, { grant: resolve, cancelTimer });
      });
      // A granted slot was handed over by a releasing check, this network already in #running.
      if (!granted) return undefined;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running.delete(network);
      this.#handOver();
    };
  }

  /** The freed slot goes to the network that has waited longest. */
  #handOver(): void {
    const next = this.#waiting.entries().next();
    if (next.done) return;
    const [network, waiter] = next.value;
    this.#waiting.delete(network);
    this.#running.add(network);
    waiter.cancelTimer();
    waiter.grant(true);
  }
}
