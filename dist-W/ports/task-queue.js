export {};
//# sourceMappingURL=task-queue.js.map