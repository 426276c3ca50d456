import type { TaskQueue } from '../../src/ports/TaskQueue.js';

/** Records tasks; tests run them explicitly. */
export class InMemoryTaskQueue implements TaskQueue {
  readonly tasks: Array<{ queue: string; payload: object }> = [];
  failNext = false;

  async enqueue(queue: string, payload: object): Promise<string> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('queue down');
    }
    this.tasks.push({ queue, payload: structuredClone(payload) });
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
