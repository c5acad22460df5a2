/**
 * HAProxy in front of the gateway for the CIRA benchmark: Debian's haproxy with the shipped
 * config/haproxy-cira.cfg (through the extra suite's `testConfig`), terminating TLS and passing
 * PROXY v2 + APF to the gateway's unix socket. HAProxy holds two descriptors per tunnel; when the
 * hard descriptor limit (`ulimit -Hn`, 20,000 on the shared bench machine, not raisable there)
 * cannot hold every tunnel in one process, the tunnels are split over several HAProxy processes on
 * ports of their own, each with the same configuration, and their RSS is summed.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { findHaproxy, startHaproxy, type RunningHaproxy } from '../haproxy/haproxy-process.js';
import { freePort } from './free-port.js';
import { readRss } from './process-rss.js';

/** Descriptors HAProxy keeps beyond two per connection (listeners, poller, logs), with room to spare. */
const SPARE_DESCRIPTORS = 200;

function hardDescriptorLimit(): number {
  const line = /^Max open files\s+\d+\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !line || line[1] === 'unlimited' ? 1_048_576 : Number(line[1]);
}

export interface HaproxyFront {
  /** One port per HAProxy process, with how many devices dial it. */
  shards: Array<{ port: number; devices: number }>;
  /** Every HAProxy process's RSS, summed (KiB); undefined when one has exited. */
  rssKiB(): number | undefined;
  stop(): Promise<void>;
}

export const haproxyAvailable = (): boolean => findHaproxy() !== undefined;

export async function startHaproxyFront(dir: string, pemFile: string, socketPath: string, devices: number): Promise<HaproxyFront> {
  const binary = findHaproxy();
  if (!binary) throw new Error('haproxy is not installed (apt-get install -y haproxy)');
  const perProcess = Math.floor((hardDescriptorLimit() - SPARE_DESCRIPTORS) / 2);
  const processes = Math.ceil(devices / perProcess);
  const running: Array<RunningHaproxy & { port: number; devices: number }> = [];
  try {
    for (let i = 0; i < processes; i++) {
      const share = Math.ceil(devices / processes);
      const count = Math.min(share, devices - i * share);
      const port = await freePort();
      const shardDir = join(dir, `haproxy-${i}`);
      await mkdir(shardDir, { recursive: true });
      const haproxy = await startHaproxy(binary, shardDir, { port, pemFile, gateway: { path: socketPath }, maxconn: count + 50 });
      running.push(Object.assign(haproxy, { port, devices: count }));
    }
  } catch (err) {
    await Promise.all(running.map((h) => h.stop()));
    throw err;
  }
  return {
    shards: running.map(({ port, devices: n }) => ({ port, devices: n })),
    rssKiB() {
      let sum = 0;
      for (const h of running) {
        const rss = h.pid === undefined ? undefined : readRss(h.pid);
        if (!rss) return undefined;
        sum += rss.rssKiB;
      }
      return sum;
    },
    stop: async () => void (await Promise.all(running.map((h) => h.stop()))),
  };
}
