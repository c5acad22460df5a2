/**
 * The `interrogate` task run in this thread (no pool, no probing, no store) over many devices at a
 * given concurrency, for the micro-benchmarks that measure a read apart from the gateway
 * (read-micro.ts: CPU; alloc-profile.ts: allocations).
 */
import { FLEET_PASSWORD } from './fleet-process.js';

export type Interrogate = (input: unknown, tools: unknown) => Promise<{ authStatus: string; hostname: string | null }>;

/** Task modules given on the command line (e.g. dist/workers/tasks/interrogate.js of two builds), else this tree's source. */
export function taskModulePaths(argv: readonly string[]): string[] {
  return argv.length > 2 ? argv.slice(2) : [new URL('../../workers/tasks/interrogate.ts', import.meta.url).pathname];
}

/** Reads every address with `concurrency` lanes; resolves with how many were signed in and read. */
export async function gatewayReads(interrogate: Interrogate, addresses: string[], concurrency: number): Promise<number> {
  let next = 0;
  let ok = 0;
  const controller = new AbortController();
  const tools = { progress: () => undefined, cancelled: () => false, signal: controller.signal };
  const lane = async () => {
    while (next < addresses.length) {
      const address = addresses[next++]!;
      const out = await interrogate({ address, ports: { http: 16992, https: 16993 }, tls: false, credential: { id: 'c1', username: 'admin', password: FLEET_PASSWORD }, readUuid: true }, tools);
      if (out.authStatus === 'ok' && out.hostname) ok++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return ok;
}
