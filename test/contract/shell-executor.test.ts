import { ChildProcessShellExecutor } from '../../src/adapters/shell/child-process-shell-executor.js';
import { describeShellExecutorContract } from './shell-executor.contract.js';

describeShellExecutorContract('child_process on the real /bin/sh', () => new ChildProcessShellExecutor());
