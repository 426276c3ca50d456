/** How often a chat that is not allowed is told so, at most: once a day. */
export const NOT_ALLOWED_NOTICE_PERIOD_MS = 24 * 60 * 60 * 1000;
/** The chats remembered as told, at most: past it the ones told longest ago are forgotten first. */
export const NOT_ALLOWED_NOTICE_CHATS = 10_000;

/**
 * Which chats that are not allowed were told so lately, in this process's memory: a chat is
 * told at most once per `periodMs` by a process (a restart, or another replica, can tell it
 * once more; the task that carries the notice is also keyed by the chat and the day, so replicas
 * store it once a day while the queue keeps its tasks). Bounded: at most `capacity` chats are
 * remembered, the ones told longest ago forgotten first, so a stranger's many chats cost a
 * bounded amount of memory (and, past the bound, a notice more each).
 */
export class NotAllowedNotices {
  /** `<channel> <chat>` → when it was told (ms); in the order they were told, oldest first. */
  readonly #told = new Map<string, number>();

  constructor(
    private readonly periodMs = NOT_ALLOWED_NOTICE_PERIOD_MS,
    private readonly capacity = NOT_ALLOWED_NOTICE_CHATS,
  ) {}

  /** Whether the chat is due its notice at `now`; when it is, it counts as told from `now` on. */
  take(channel: string, chatId: string, now: Date): boolean {
    const key = JSON.stringify([channel, chatId]);
    const at = now.getTime();
    const told = this.#told.get(key);
    if (told !== undefined && at - told < this.periodMs && at >= told) return false;
    this.#told.delete(key);
    this.#told.set(key, at);
    for (const oldest of this.#told.keys()) {
      if (this.#told.size <= this.capacity) break;
      this.#told.delete(oldest);
    }
    return true;
  }

  /** Forgets that the chat was told at `now` (`take`'s mark), as when its notice could not be queued: the platform's retry tells it. */
  untake(channel: string, chatId: string, now: Date): void {
    const key = JSON.stringify([channel, chatId]);
    if (this.#told.get(key) === now.getTime()) this.#told.delete(key);
  }
}
