/** Fixed-concurrency HTTP load with autocannon: requests per second and latency percentiles. */
import { createRequire } from 'node:module';

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

// autocannon ships no types; only the parts used here are declared above.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Paths used in turn (e.g. one device id after another); default the URL's own path. */
  paths?: string[];
  /** Bodies used in turn (e.g. one machine name after another). */
  bodies?: string[];
  connections: number;
  durationS: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
}

async function fire(spec: LoadSpec, durationS: number): Promise<LoadResult> {
  let i = 0;
  const request: AutocannonRequest & { setupRequest?: (r: AutocannonRequest) => AutocannonRequest } = {};
  if (spec.paths?.length || spec.bodies?.length) {
    request.setupRequest = (r) => {
      const n = i++;
      return { ...r, ...(spec.paths?.length ? { path: spec.paths[n % spec.paths.length] } : {}), ...(spec.bodies?.length ? { body: spec.bodies[n % spec.bodies.length] } : {}) };
    };
  }
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    ...(spec.body === undefined ? {} : { body: spec.body }),
    connections: spec.connections,
    duration: durationS,
    requests: [request],
  });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

function check(spec: LoadSpec, result: LoadResult): LoadResult {
  if (result.failures > 0) throw new Error(`${spec.method ?? 'GET'} ${spec.url}: ${result.failures} of ${result.requests} requests failed or were not 2xx`);
  return result;
}

/** A short warm-up (JIT, connection set-up), then the measured run. Throws if any request failed. */
export async function measureLoad(spec: LoadSpec): Promise<LoadResult> {
  await fire(spec, Math.min(2, spec.durationS));
  return check(spec, await fire(spec, spec.durationS));
}

/**
 * Loads several endpoints in turn, `rounds` times over (each run `durationS / rounds` long, after one
 * warm-up each), so that a change of load on a shared machine hits the endpoint and its reference
 * alike. Per endpoint: requests per second over all its runs, mean p50, highest p99.
 */
export async function measureInterleaved<K extends string>(specs: Record<K, LoadSpec>, rounds = 2): Promise<Record<K, LoadResult>> {
  const names = Object.keys(specs) as K[];
  for (const name of names) await fire(specs[name], Math.min(2, specs[name].durationS));
  const runs = new Map<K, LoadResult[]>(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const name of names) runs.get(name)!.push(check(specs[name], await fire(specs[name], Math.max(1, Math.round(specs[name].durationS / rounds)))));
  }
  const out = {} as Record<K, LoadResult>;
  for (const name of names) {
    const list = runs.get(name)!;
    const seconds = list.reduce((n, x) => n + x.requests / x.rps, 0);
    const requests = list.reduce((n, x) => n + x.requests, 0);
    out[name] = { rps: requests / seconds, p50: list.reduce((n, x) => n + x.p50, 0) / list.length, p99: Math.max(...list.map((x) => x.p99)), requests, failures: 0 };
  }
  return out;
}
