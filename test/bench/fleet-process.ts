/**
 * Runs a simulated fleet in its own process (fleet-host.ts) and reads its counters over IPC.
 * BENCH_FLEET_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/x' adds node flags to the fleet's process (to see where its CPU goes).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FleetOptions } from '../sim/fleet-options.js';
import type { DeviceCounters } from '../sim/device-state.js';
import type { FleetReply, FleetRequest } from './fleet-host.js';
import { BENCH_RMCP_PORT } from './gateway-process.js';
import { askChild } from './child-ask.js';

const HOST = fileURLToPath(new URL('./fleet-host.ts', import.meta.url));
/** The password every benchmark device uses (admin / this). */
export const FLEET_PASSWORD = 'P@ssw0rd1';
/** The first device address; devices follow consecutively, skipping .0 and .255. */
export const FLEET_BASE = '127.200.0.1';

export interface BenchFleet {
  pid: number;
  count: number;
  firstAddress: string;
  lastAddress: string;
  startupMs: number;
  counters(): Promise<DeviceCounters>;
  resetCounters(): Promise<void>;
  stop(): Promise<void>;
}

const ask = <K extends FleetReply['type']>(child: ChildProcess, request: FleetRequest | null, type: K) => askChild<FleetReply, K>(child, request, type, 'the simulated fleet');

/**
 * Starts `count` simulated devices from 127.200.0.1 with RMCP on the benchmark port. An address in
 * use (another benchmark run, or the previous fleet's sockets still closing) is retried a few times.
 */
export async function startBenchFleet(count: number, extra: Partial<FleetOptions> = {}): Promise<BenchFleet> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(count, extra);
    } catch (err) {
      if (attempt >= 4 || !/EADDRINUSE/.test((err as Error).message)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
}

async function startOnce(count: number, extra: Partial<FleetOptions>): Promise<BenchFleet> {
  const options: FleetOptions = { count, base: FLEET_BASE, rmcpPort: BENCH_RMCP_PORT, password: FLEET_PASSWORD, ...extra };
  let stderr = '';
  const child = fork(HOST, [JSON.stringify(options)], { execArgv: ['--import', 'tsx', ...(process.env.BENCH_FLEET_FLAGS ?? '').split(' ').filter(Boolean)], stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = await ask(child, null, 'ready').catch((err: Error) => {
    throw new Error(`${err.message}: ${stderr.trim()}`);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    count: ready.count,
    firstAddress: ready.firstAddress!,
    lastAddress: ready.lastAddress!,
    startupMs: ready.startupMs,
    counters: async () => (await ask(child, { type: 'counters' }, 'counters')).counters,
    resetCounters: async () => void (await ask(child, { type: 'reset' }, 'reset')),
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
