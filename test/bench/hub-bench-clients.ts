/**
 * Child process of hub-fanout.ts: opens N raw hub clients (JSON handshake by hand, as the SignalR
 * client does over WebSockets), records when each ScanProgress arrives against the `publishedAt`
 * the fixture put in it, and reports a summary to the parent once every client saw ScanCompleted.
 */
import WebSocket from 'ws';

interface Start {
  url: string;
  count: number;
}

const RS = '\x1e';
const now = () => performance.timeOrigin + performance.now();

interface ClientStats {
  progress: number;
  discovered: number;
  completed: boolean;
  closed: boolean;
  lastPercent: number;
}

function openClient(url: string, latencies: number[], stats: ClientStats, onComplete: () => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let tail = '';
    let handshaken = false;
    ws.once('open', () => ws.send(`{"protocol":"json","version":1}${RS}`));
    ws.once('error', reject);
    ws.on('close', () => (stats.closed = true));
    ws.on('message', (data: Buffer) => {
      const parts = (tail + data.toString('utf8')).split(RS);
      tail = parts.pop()!;
      const receivedAt = now();
      for (const part of parts) {
        if (!handshaken) {
          handshaken = true;
          resolve(ws);
          continue;
        }
        // Only progress is parsed: the client process must stay cheap so that its own backlog does not show as hub latency.
        if (part.startsWith('{"type":1,"target":"DeviceDiscovered"')) stats.discovered++;
        else if (part.startsWith('{"type":1,"target":"ScanProgress"')) {
          const arg = (JSON.parse(part) as { arguments: Array<Record<string, number>> }).arguments[0]!;
          stats.progress++;
          stats.lastPercent = arg.percent!;
          if (arg.publishedAt) latencies.push(receivedAt - arg.publishedAt);
        } else if (part.startsWith('{"type":1,"target":"ScanCompleted"')) {
          stats.completed = true;
          onComplete();
        }
      }
    });
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

process.once('message', async ({ url, count }: Start) => {
  const latencies: number[] = [];
  const stats: ClientStats[] = [];
  const sockets: WebSocket[] = [];
  let completed = 0;
  const report = () => {
    const sorted = [...latencies].sort((a, b) => a - b);
    process.send!({
      kind: 'report',
      clients: stats.length,
      completed,
      closedEarly: stats.filter((s) => s.closed).length,
      progressPerClient: [Math.min(...stats.map((s) => s.progress)), Math.max(...stats.map((s) => s.progress))],
      discoveredPerClient: [Math.min(...stats.map((s) => s.discovered)), Math.max(...stats.map((s) => s.discovered))],
      allEndedAt100: stats.every((s) => s.lastPercent === 100),
      latencyMs: { samples: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) },
    });
  };
  for (let i = 0; i < count; i += 200) {
    const batch = Array.from({ length: Math.min(200, count - i) }, () => {
      const s: ClientStats = { progress: 0, discovered: 0, completed: false, closed: false, lastPercent: -1 };
      stats.push(s);
      return openClient(url, latencies, s, () => {
        if (++completed === count) report();
      });
    });
    sockets.push(...(await Promise.all(batch)));
  }
  // The clients' own keep-alive, so the hub's client timeout never fires during a long run.
  setInterval(() => sockets.forEach((ws) => ws.readyState === WebSocket.OPEN && ws.send(`{"type":6}${RS}`)), 10_000).unref();
  process.send!({ kind: 'ready' });
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'report-now') report();
  });
});
