import { ChildProcessShellExecutor } from '../../src/adapters/shell/child-process-shell-executor.js';
import { SpawnerShellExecutor } from '../../src/adapters/shell/spawner/spawner-shell-executor.js';
import { describeShellExecutorContract } from './shell-executor.contract.js';

describeShellExecutorContract('child_process on the real /bin/sh', () => new ChildProcessShellExecutor());
describeShellExecutorContract(
  'a spawner process on the real /bin/sh',
  () => new SpawnerShellExecutor(),
  (shell) => shell.close(),
);
