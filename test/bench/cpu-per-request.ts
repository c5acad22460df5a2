/**
 * CPU time a server process spends per request: a fixed number of requests (autocannon `amount`)
 * against it, and its user + system time from /proc/<pid>/stat before and after. Unlike requests
 * per second, this hardly moves when other work shares the machine.
 */
import { createRequire } from 'node:module';
import { readCpuSeconds } from './process-rss.js';

type Autocannon = (options: Record<string, unknown>) => Promise<{ requests: { total: number }; errors: number; timeouts: number; non2xx: number }>;
// autocannon ships no types; only the parts used here are declared above.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function cpuMs(pid: number): number {
  const seconds = readCpuSeconds(pid);
  if (seconds === undefined) throw new Error(`process ${pid} is gone`);
  return seconds * 1000;
}

export interface CpuLoadSpec {
  url: string;
  /** The process answering `url`. */
  pid: number;
  method?: string;
  headers?: Record<string, string>;
  /** Bodies used in turn. */
  bodies?: string[];
  /** Paths used in turn (default the URL's own). */
  paths?: string[];
  connections: number;
  requests: number;
}

/** Microseconds of the server's CPU per request, after a warm-up of a tenth as many requests. */
export async function cpuPerRequest(spec: CpuLoadSpec): Promise<number> {
  const run = async (amount: number) => {
    let i = 0;
    const result = await autocannon({
      url: spec.url,
      method: spec.method ?? 'GET',
      headers: spec.headers ?? {},
      connections: spec.connections,
      amount,
      requests: [
        spec.bodies?.length || spec.paths?.length
          ? {
              setupRequest: (r: object) => {
                const n = i++;
                return { ...r, ...(spec.bodies?.length ? { body: spec.bodies[n % spec.bodies.length] } : {}), ...(spec.paths?.length ? { path: spec.paths[n % spec.paths.length] } : {}) };
              },
            }
          : {},
      ],
    });
    const failures = result.errors + result.timeouts + result.non2xx;
    if (failures > 0) throw new Error(`${spec.url}: ${failures} of ${result.requests.total} requests failed or were not 2xx`);
    return result.requests.total;
  };
  await run(Math.ceil(spec.requests / 10));
  const before = cpuMs(spec.pid);
  const done = await run(spec.requests);
  return ((cpuMs(spec.pid) - before) * 1000) / done;
}
