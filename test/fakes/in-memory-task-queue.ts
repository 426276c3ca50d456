import type { EnqueueOptions, TaskQueue } from '../../src/ports/task-queue.js';

/** Records tasks; tests run them explicitly. */
export class InMemoryTaskQueue implements TaskQueue {
  readonly tasks: Array<{ queue: string; payload: object; group?: string }> = [];
  readonly #keys = new Set<string>();
  failNext = false;

  async enqueue(queue: string, payload: object, options: EnqueueOptions = {}): Promise<string | null> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('queue down');
    }
    if (options.key !== undefined) {
      if (this.#keys.has(`${queue}:${options.key}`)) return null;
      this.#keys.add(`${queue}:${options.key}`);
    }
    this.tasks.push({ queue, payload: structuredClone(payload), ...(options.group === undefined ? {} : { group: options.group }) });
    return String(this.tasks.length);
  }

  async work(): Promise<void> {}

  async failed(): Promise<Record<string, number>> {
    return {};
  }

  async depth(): Promise<Record<string, number>> {
    const depth: Record<string, number> = {};
    for (const task of this.tasks) depth[task.queue] = (depth[task.queue] ?? 0) + 1;
    return depth;
  }
}
