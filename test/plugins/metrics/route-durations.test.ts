/**
 * The HTTP duration histogram the metrics plugin counts itself exports exactly what prom-client's
 * own Histogram exports for the same observations: the text a scraper reads and the JSON.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { RouteDurations } from '../../../plugins/metrics/route-durations.js';

const NAME = 'amtgw_http_request_duration_seconds';
const HELP = 'HTTP requests by route';
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

test('exports the same series, buckets, sums and counts as prom-client for the same observations, and resets', async () => {
  const reference = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({ name: NAME, help: HELP, labelNames: ['method', 'route', 'status'], buckets: BUCKETS, registers: [reference] });
  const durations = new RouteDurations({ name: NAME, help: HELP, buckets: BUCKETS, registry: ours });
  // Grouped by method, then route, then status: the order both keep their series in.
  const observations: Array<[string, string, number, number]> = [
    ['GET', '/api/devices/:id', 200, 0.00007],
    ['GET', '/api/devices/:id', 200, 0.001],
    ['GET', '/api/devices/:id', 200, 0.0011],
    ['GET', '/api/devices/:id', 404, 0.0004],
    ['GET', 'unmatched', 404, 12],
    ['POST', '/api/power/:deviceId', 200, 0.25],
    ['POST', '/api/power/:deviceId', 200, 0.2500001],
    ['POST', '/api/power/:deviceId', 200, 3.5],
  ];
  for (const [method, route, status, seconds] of observations) {
    histogram.labels(method, route, String(status)).observe(seconds);
    durations.record(method, route, status, seconds);
  }
  assert.equal(await ours.metrics(), await reference.metrics());
  assert.deepEqual(await ours.getMetricsAsJSON(), await reference.getMetricsAsJSON());
  assert.match(await ours.metrics(), /amtgw_http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/api\/power\/:deviceId",status="200"\} 3/);
  ours.resetMetrics();
  reference.resetMetrics();
  assert.equal(await ours.metrics(), await reference.metrics());
});
