import { expect } from 'chai';
import { Registry, type Metric } from 'prom-client';
import { RequestFigures } from '../../../src/adapters/http/request-figures.js';

const exposition = async (figures: RequestFigures): Promise<string> => {
  const registry = new Registry();
  registry.registerMetric(figures.requests() as unknown as Metric);
  registry.registerMetric(figures.latency() as unknown as Metric);
  return registry.metrics();
};

describe('RequestFigures (requests and latency on GET /metrics)', () => {
  it('counts requests by route, method and status, and serves them as a Prometheus counter', async () => {
    const figures = new RequestFigures();
    figures.observe('ping', 'GET', 200, 0.0004);
    figures.observe('ping', 'GET', 200, 0.0004);
    figures.observe('create-job', 'POST', 400, 0.002);
    const text = await exposition(figures);
    expect(text).to.contain('# HELP agw_http_requests_total HTTP requests by route, method and status\n# TYPE agw_http_requests_total counter\n');
    expect(text).to.contain('agw_http_requests_total{route="ping",method="GET",status="200"} 2\n');
    expect(text).to.contain('agw_http_requests_total{route="create-job",method="POST",status="400"} 1\n');
  });

  it('serves the latency by route as a cumulative histogram: each bucket counts what is at most its bound, +Inf everything, with sum and count', async () => {
    const figures = new RequestFigures();
    figures.observe('webhook', 'POST', 200, 0.001); // on a bound: in that bucket
    figures.observe('webhook', 'POST', 200, 0.003);
    figures.observe('webhook', 'POST', 401, 0.2);
    figures.observe('webhook', 'POST', 200, 7); // over the largest bound
    const lines = (await exposition(figures)).split('\n').filter((line) => line.startsWith('agw_http_request_duration_seconds'));
    expect(lines).to.deep.equal([
      'agw_http_request_duration_seconds_bucket{le="0.001",route="webhook"} 1',
      'agw_http_request_duration_seconds_bucket{le="0.0025",route="webhook"} 1',
      'agw_http_request_duration_seconds_bucket{le="0.005",route="webhook"} 2',
      'agw_http_request_duration_seconds_bucket{le="0.01",route="webhook"} 2',
      'agw_http_request_duration_seconds_bucket{le="0.025",route="webhook"} 2',
      'agw_http_request_duration_seconds_bucket{le="0.05",route="webhook"} 2',
      'agw_http_request_duration_seconds_bucket{le="0.1",route="webhook"} 2',
      'agw_http_request_duration_seconds_bucket{le="0.25",route="webhook"} 3',
      'agw_http_request_duration_seconds_bucket{le="0.5",route="webhook"} 3',
      'agw_http_request_duration_seconds_bucket{le="1",route="webhook"} 3',
      'agw_http_request_duration_seconds_bucket{le="2.5",route="webhook"} 3',
      'agw_http_request_duration_seconds_bucket{le="+Inf",route="webhook"} 4',
      'agw_http_request_duration_seconds_sum{route="webhook"} 7.204',
      'agw_http_request_duration_seconds_count{route="webhook"} 4',
    ]);
  });
});
