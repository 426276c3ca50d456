/**
 * The per-request figures of GET /metrics — requests by route, method and status, and the latency
 * histogram by route — counted in plain numbers on each request and turned into Prometheus
 * series only when scraped. prom-client's Counter and Histogram hash their label set on every
 * update (also through a labelled child); at tens of thousands of requests a second that was
 * the dearest part of the request log (bench/README.md, "Measurements behind the code").
 * Registered in prom-client's Registry beside its own metrics, in the form its exposition takes
 * (`get()`), so the text served is the same.
 */

/** The latency buckets, in seconds (upper bounds; `+Inf` is implied). */
export const LATENCY_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

type Sample = { value: number; labels: Record<string, string | number>; sharedLabels?: Record<string, string>; metricName?: string };

interface Latency {
  readonly route: string;
  /** Observations per bucket, not cumulative; the last slot is over the largest bound. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

interface Series {
  readonly labels: { readonly route: string; readonly method: string; readonly status: string };
  requests: number;
}

/** One metric as prom-client's Registry reads it (the shape its own metrics' `get()` returns). */
export interface CollectedMetric {
  readonly name: string;
  get(): Promise<{
    readonly name: string;
    readonly help: string;
    readonly type: 'counter' | 'histogram';
    readonly aggregator: 'sum';
    readonly values: Sample[];
  }>;
}

export class RequestFigures {
  /** Series in the order they first appeared (the exposition's order). */
  readonly #series: Series[] = [];
  /**
   * Series by route, then method, then status: looked up with the strings and number the
   * request already has. A key built per request (`${route} ${method} ${status}`) cost a new
   * string, its hash and a character-wise comparison on every request (bench/README.md).
   */
  readonly #byRoute = new Map<string, { readonly latency: Latency; readonly byMethod: Map<string, Map<number, Series>> }>();

  /** Counts one finished request. The label sets are bounded: declared route names, a few methods and statuses. */
  observe(route: string, method: string, status: number, seconds: number): void {
    let forRoute = this.#byRoute.get(route);
    if (forRoute === undefined) {
      forRoute = { latency: { route, buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 }, byMethod: new Map() };
      this.#byRoute.set(route, forRoute);
    }
    let byStatus = forRoute.byMethod.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      forRoute.byMethod.set(method, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { labels: { route, method, status: String(status) }, requests: 0 };
      byStatus.set(status, series);
      this.#series.push(series);
    }
    series.requests++;
    const latency = forRoute.latency;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
    latency.buckets[bucket]++;
    latency.sum += seconds;
    latency.count++;
  }

  /** `agw_http_requests_total`. */
  requests(): CollectedMetric {
    const name = 'agw_http_requests_total';
    return {
      name,
      get: async () => ({
        name,
        help: 'HTTP requests by route, method and status',
        type: 'counter',
        aggregator: 'sum',
        values: this.#series.map((series) => ({ value: series.requests, labels: { ...series.labels } })),
      }),
    };
  }

  /** `agw_http_request_duration_seconds`. */
  latency(): CollectedMetric {
    const name = 'agw_http_request_duration_seconds';
    return {
      name,
      get: async () => ({
        name,
        help: 'HTTP request latency by route',
        type: 'histogram',
        aggregator: 'sum',
        values: [...this.#byRoute.values()].flatMap(({ latency }): Sample[] => {
          const sharedLabels = { route: latency.route };
          let cumulative = 0;
          return [
            ...LATENCY_BUCKETS.map((le, i) => {
              cumulative += latency.buckets[i];
              return { value: cumulative, labels: { le }, sharedLabels, metricName: `${name}_bucket` };
            }),
            { value: latency.count, labels: { le: '+Inf' }, sharedLabels, metricName: `${name}_bucket` },
            { value: latency.sum, labels: {}, sharedLabels, metricName: `${name}_sum` },
            { value: latency.count, labels: {}, sharedLabels, metricName: `${name}_count` },
          ];
        }),
      }),
    };
  }
}
