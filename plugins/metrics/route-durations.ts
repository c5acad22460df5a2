/**
 * The HTTP request duration histogram, counted in the plugin's own buckets per method, route and
 * status, and handed to prom-client only when scraped. What it buys: prom-client's `observe`
 * validates and hashes the labels on every call, which cost cheap requests (`GET /api/devices/{id}`,
 * ~65 µs of server CPU) about 10 % more CPU in `npm run bench -- audit-metrics`; a lookup in nested
 * maps and one increment cost nothing measurable there (BENCHMARKS.md, "Audit trail and metrics").
 */
import { Histogram, type Registry } from 'prom-client';

type Label = 'method' | 'route' | 'status';

interface Series {
  labels: Record<Label, string>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class RouteDurations extends Histogram<Label> {
  private readonly bounds: readonly number[];
  private readonly metricName: string;
  private readonly helpText: string;
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  constructor(options: { name: string; help: string; buckets: number[]; registry: Registry }) {
    super({ name: options.name, help: options.help, labelNames: ['method', 'route', 'status'], buckets: options.buckets, registers: [options.registry] });
    this.bounds = [...options.buckets].sort((a, b) => a - b);
    this.metricName = options.name;
    this.helpText = options.help;
  }

  record(method: string, route: string, status: number, seconds: number): void {
    let routes = this.series.get(method);
    if (!routes) this.series.set(method, (routes = new Map()));
    let statuses = routes.get(route);
    if (!statuses) routes.set(route, (statuses = new Map()));
    let series = statuses.get(status);
    if (!series) statuses.set(status, (series = { labels: { method, route, status: String(status) }, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }));
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  // The base constructor calls reset() before this class's fields exist.
  override reset(): void {
    this.series?.clear();
  }

  /** What prom-client's registry formats: the same values its own histogram exports. */
  async getForPromString() {
    const name = this.metricName;
    const values: Array<{ labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number; metricName: string; exemplar: null | undefined }> = [];
    for (const routes of this.series.values()) {
      for (const statuses of routes.values()) {
        for (const { labels, counts, sum, count } of statuses.values()) {
          let cumulative = 0;
          this.bounds.forEach((le, i) => {
            cumulative += counts[i]!;
            values.push({ labels: { le }, sharedLabels: labels, value: cumulative, metricName: `${name}_bucket`, exemplar: null });
          });
          values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: `${name}_bucket`, exemplar: null });
          values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${name}_sum`, exemplar: undefined });
          values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${name}_count`, exemplar: undefined });
        }
      }
    }
    return { name, help: this.helpText, type: 'histogram', values, aggregator: 'sum' };
  }
}
