/** Percentiles, and matching what the clients received against when it was published. */
import type { HubClient } from './hub-swarm.js';

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface DeliveryLatency {
  p50: number | null;
  p99: number | null;
  max: number | null;
  samples: number;
  /** Arrivals with no publication to match (the hub's own 100 % at completion). */
  unmatched: number;
}

/** Latency of every arrival: arrival time minus the latest publication of the same progress before it. */
export function deliveryLatency(clients: readonly HubClient[], stamps: ReadonlyArray<{ key: string; at: number }>): DeliveryLatency {
  const byKey = new Map<string, number[]>();
  for (const s of stamps) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s.at]);
  const latencies: number[] = [];
  let unmatched = 0;
  for (const client of clients) {
    for (const arrival of client.progress) {
      // 1 ms of slack for the two processes' clocks.
      const published = (byKey.get(arrival.key) ?? []).filter((t) => t <= arrival.at + 1);
      if (published.length === 0) {
        unmatched++;
        continue;
      }
      latencies.push(Math.max(0, arrival.at - Math.max(...published)));
    }
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? null, samples: latencies.length, unmatched };
}
