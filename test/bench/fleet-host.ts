/**
 * Child process: a simulated fleet (test/sim) controlled over IPC, so that the benchmarks can read
 * the devices' counters (HTTP requests, connections, pings) without sharing the fleet's CPU.
 * Started by fleet-process.ts with the fleet options as JSON in argv[2].
 */
import { startFleet } from '../sim/fleet.js';
import type { FleetOptions } from '../sim/fleet-options.js';
import type { DeviceCounters } from '../sim/device-state.js';

export type FleetRequest = { type: 'counters' } | { type: 'reset' } | { type: 'stop' };
export type FleetReply =
  | { type: 'ready'; count: number; firstAddress: string | null; lastAddress: string | null; startupMs: number }
  | { type: 'counters'; counters: DeviceCounters }
  | { type: 'reset' };

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as FleetOptions;
  const fleet = await startFleet(options);
  const send = (reply: FleetReply) => process.send!(reply);
  const manifest = fleet.manifest();
  send({ type: 'ready', count: manifest.count, firstAddress: manifest.firstAddress, lastAddress: manifest.lastAddress, startupMs: manifest.startupMs });
  const stop = () => void fleet.stop().then(() => process.exit(0));
  process.on('message', (message: FleetRequest) => {
    if (message.type === 'stop') return stop();
    if (message.type === 'reset') {
      for (const device of fleet.devices) device.resetCounters();
      return send({ type: 'reset' });
    }
    const sum: DeviceCounters = { requests: 0, authAttempts: 0, unauthorized: 0, authFailures: 0, lockedRefusals: 0, connections: 0, peakOpenConnections: 0, rmcpPings: 0, powerChanges: 0 };
    for (const device of fleet.devices) {
      const c = device.counters();
      for (const key of Object.keys(sum) as Array<keyof DeviceCounters>) if (key !== 'peakOpenConnections') sum[key] += c[key];
      // Not a sum: the most connections any one device had open at once.
      sum.peakOpenConnections = Math.max(sum.peakOpenConnections, c.peakOpenConnections);
    }
    send({ type: 'counters', counters: sum });
  });
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench fleet: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
