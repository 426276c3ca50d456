import { ChildProcessShellExecutor } from '../../src/adapters/shell/ChildProcessShellExecutor.js';
import { describeShellExecutorContract } from './ShellExecutor.contract.js';

describeShellExecutorContract('child_process on the real /bin/sh', () => new ChildProcessShellExecutor());
