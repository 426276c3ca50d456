import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import type { AdminUiDependencies } from '../../../src/adapters/http/admin/admin-ui.js';
import { createHttpApp, type HttpAppDependencies } from '../../../src/adapters/http/http-app.js';
import { PrometheusMetrics } from '../../../src/adapters/http/prometheus-metrics.js';
import type { CollectOperationalFigures } from '../../../src/application/operations/collect-operational-figures.js';
import { apiRoutes } from '../../../src/domain/auth/route-policy.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';

/*
 * A request with a method its path does not take (405) is counted and logged under the route
 * of its path, as any other answer of that route: `unmatched` is for paths no route has.
 */
describe('the HTTP app: the route a 405 is counted and logged under', () => {
  let server: Server;
  let url: string;
  let lines: Record<string, unknown>[];

  beforeEach(async () => {
    lines = [];
    const figures = { execute: async () => ({ queueDepth: {}, failedTasks: {}, jobs: {}, actionRuns: {} }) } as unknown as CollectOperationalFigures;
    const deps = {
      routes: apiRoutes([{ id: 'telegram', registers: true }], 'telegram'),
      credentialHeaders: [],
      pino: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }),
      metrics: new PrometheusMetrics(figures, undefined),
      checkReadiness: { execute: async () => ({ ready: true, checks: {} }) },
      admin: { logger: new RecordingLogger() } as Partial<AdminUiDependencies> as AdminUiDependencies,
      bodyLimit: 1024 * 1024,
      trustedProxies: 0,
      adminHosts: { names: [], any: false },
    } as unknown as HttpAppDependencies;
    server = createServer(createHttpApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const send = async (method: string, path: string): Promise<number> => {
    const response = await fetch(`${url}${path}`, { method });
    await response.arrayBuffer();
    return response.status;
  };

  it('counts a wrong method on an /api endpoint under its route in agw_http_requests_total, and names the route in the log line', async () => {
    expect(await send('POST', '/api/ping')).to.equal(405);
    expect(await send('GET', '/api/webhook')).to.equal(405);
    expect(await send('DELETE', '/api/Messaging/Telegram/Register/')).to.equal(405);
    expect(await send('GET', '/api/nowhere')).to.equal(404);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).to.match(/^agw_http_requests_total\{route="ping",method="POST",status="405"\} 1$/m);
    expect(metrics).to.match(/^agw_http_requests_total\{route="webhook",method="GET",status="405"\} 1$/m);
    expect(metrics).to.match(/^agw_http_requests_total\{route="messaging-register:telegram",method="DELETE",status="405"\} 1$/m);
    expect(metrics).to.match(/^agw_http_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m);
    expect(metrics).not.to.match(/^agw_http_requests_total\{route="unmatched",[^}]*status="405"\}/m);
    const requests = lines.filter((line) => line.msg === 'request').map(({ method, path, route, status }) => ({ method, path, route, status }));
    expect(requests.slice(0, 4)).to.deep.equal([
      { method: 'POST', path: '/api/ping', route: 'ping', status: 405 },
      { method: 'GET', path: '/api/webhook', route: 'webhook', status: 405 },
      { method: 'DELETE', path: '/api/Messaging/Telegram/Register/', route: 'messaging-register:telegram', status: 405 },
      { method: 'GET', path: '/api/nowhere', route: undefined, status: 404 },
    ]);
  });

  it('counts a wrong method on the probes and /metrics under their own names', async () => {
    expect(await send('POST', '/healthz')).to.equal(405);
    expect(await send('PUT', '/readyz')).to.equal(405);
    expect(await send('POST', '/metrics')).to.equal(405);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).to.match(/^agw_http_requests_total\{route="healthz",method="POST",status="405"\} 1$/m);
    expect(metrics).to.match(/^agw_http_requests_total\{route="readyz",method="PUT",status="405"\} 1$/m);
    expect(metrics).to.match(/^agw_http_requests_total\{route="metrics",method="POST",status="405"\} 1$/m);
    expect(lines.filter((line) => line.status === 405).map((line) => line.route)).to.deep.equal(['healthz', 'readyz', 'metrics']);
  });
});
