export {};
//# sourceMappingURL=worktree-agent.js.map