import 'reflect-metadata';
import { killSurvivors, survivors } from './gatewayProcess.js';

/**
 * Mocha root hooks (this file is loaded with --require). After the whole run, any gateway or
 * CLI process a test spawned and never stopped — its suite's setup failed or timed out before
 * the stop — is killed and named, so that no test run leaves processes behind.
 */
export const mochaHooks = {
  afterAll(): void {
    const left = survivors();
    if (left.length === 0) return;
    killSurvivors();
    process.stderr.write(`killed ${left.length} test process(es) left running: ${left.map((s) => `${s.pid} ${s.command}`).join('; ')}\n`);
  },
};
