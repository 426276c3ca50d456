import { expect } from 'chai';
import Koa from 'koa';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusMetrics } from '../../../src/adapters/http/prometheus-metrics.js';
import type { CollectOperationalFigures, OperationalFigures } from '../../../src/application/operations/collect-operational-figures.js';

describe('PrometheusMetrics', () => {
  it('reports 0 for an action run status none has any longer, instead of its last count', async () => {
    let figures: OperationalFigures = { queueDepth: {}, failedTasks: {}, jobs: {}, actionRuns: { running: 2, succeeded: 5 } };
    const metrics = new PrometheusMetrics({ execute: async () => figures } as unknown as CollectOperationalFigures, undefined);
    const app = new Koa();
    app.use(metrics.endpoint());
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();
    try {
      expect(await scrape()).to.match(/^agw_trigger_action_runs\{status="running"\} 2$/m);
      figures = { ...figures, actionRuns: { succeeded: 7 } };
      const text = await scrape();
      expect(text).to.match(/^agw_trigger_action_runs\{status="running"\} 0$/m);
      expect(text).to.match(/^agw_trigger_action_runs\{status="succeeded"\} 7$/m);
      expect(text).to.match(/^agw_trigger_action_runs\{status="awaiting_approval"\} 0$/m);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
