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
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
export class RequestFigures {
    #series = new Map();
    #latencies = new Map();
    /** Counts one finished request. The label sets are bounded: declared route names, a few methods and statuses. */
    observe(route, method, status, seconds) {
        const key = `${route} ${method} ${status}`;
        let series = this.#series.get(key);
        if (series === undefined) {
            let latency = this.#latencies.get(route);
            if (latency === undefined) {
                latency = { route, buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 };
                this.#latencies.set(route, latency);
            }
            series = { labels: { route, method, status: String(status) }, requests: 0, latency };
            this.#series.set(key, series);
        }
        series.requests++;
        const latency = series.latency;
        let bucket = 0;
        while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket])
            bucket++;
        latency.buckets[bucket]++;
        latency.sum += seconds;
        latency.count++;
    }
    /** `agw_http_requests_total`. */
    requests() {
        const name = 'agw_http_requests_total';
        return {
            name,
            get: async () => ({
                name,
                help: 'HTTP requests by route, method and status',
                type: 'counter',
                aggregator: 'sum',
                values: [...this.#series.values()].map((series) => ({ value: series.requests, labels: { ...series.labels } })),
            }),
        };
    }
    /** `agw_http_request_duration_seconds`. */
    latency() {
        const name = 'agw_http_request_duration_seconds';
        return {
            name,
            get: async () => ({
                name,
                help: 'HTTP request latency by route',
                type: 'histogram',
                aggregator: 'sum',
                values: [...this.#latencies.values()].flatMap((latency) => {
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
//# sourceMappingURL=request-figures.js.map