/**
 * Many SignalR clients of /scanHub in one process, speaking the JSON hub protocol over `ws` as the
 * @microsoft/signalr client does (negotiate, WebSocket with the connection token, handshake, pings),
 * but parsing only the ScanProgress records: 1,000 full clients would cost the machine more CPU
 * than the gateway. Each ScanProgress is timed on arrival for the latency figures.
 */
import WebSocket from 'ws';

const RS = '\x1e';
const PROGRESS = Buffer.from('"target":"ScanProgress"');
const DISCOVERED = Buffer.from('"target":"DeviceDiscovered"');
const CLIENT_PING_MS = 10_000;

/** A clock shared by processes on one machine: epoch milliseconds with sub-millisecond resolution. */
export const epochMs = () => performance.timeOrigin + performance.now();

export interface ProgressArrival {
  key: string;
  at: number;
}

export interface HubClient {
  progress: ProgressArrival[];
  discovered: number;
  closed: boolean;
}

export interface HubSwarm {
  clients: HubClient[];
  /** Forgets what the clients received so far. */
  reset(): void;
  close(): Promise<void>;
}

/** The key a ScanProgress is matched on between publisher and client. */
export const progressKey = (p: { scanned: number; found: number; percent: number }) => `${p.scanned}/${p.found}/${p.percent}`;

async function connectOne(baseUrl: string, token: string): Promise<{ ws: WebSocket; client: HubClient }> {
  const res = await fetch(`${baseUrl}/scanHub/negotiate?negotiateVersion=1`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`negotiate answered ${res.status}: ${await res.text()}`);
  const { connectionToken } = (await res.json()) as { connectionToken: string };
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/scanHub?id=${encodeURIComponent(connectionToken)}&access_token=${encodeURIComponent(token)}`, { perMessageDeflate: false });
  const client: HubClient = { progress: [], discovered: 0, closed: false };
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(`{"protocol":"json","version":1}${RS}`));
    ws.once('message', (data: Buffer) => {
      ws.off('error', reject);
      const text = data.toString('utf8');
      if (!text.startsWith('{}')) return reject(new Error(`handshake refused: ${text}`));
      resolve();
    });
  });
  ws.on('error', () => undefined);
  ws.on('close', () => (client.closed = true));
  ws.on('message', (data: Buffer) => {
    const at = epochMs();
    if (data.includes(DISCOVERED)) client.discovered += data.toString('utf8').split(RS).filter((r) => r.includes('"DeviceDiscovered"')).length;
    if (!data.includes(PROGRESS)) return;
    for (const record of data.toString('utf8').split(RS)) {
      if (!record.includes('"ScanProgress"')) continue;
      const message = JSON.parse(record) as { arguments: Array<{ scanned: number; found: number; percent: number }> };
      client.progress.push({ key: progressKey(message.arguments[0]!), at });
    }
  });
  return { ws, client };
}

/** Connects `count` clients, `parallel` at a time. */
export async function connectSwarm(baseUrl: string, token: string, count: number, parallel = 50): Promise<HubSwarm> {
  const sockets: WebSocket[] = [];
  const clients: HubClient[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, () => connectOne(baseUrl, token)));
    for (const { ws, client } of batch) {
      sockets.push(ws);
      clients.push(client);
    }
  }
  const ping = setInterval(() => {
    for (const ws of sockets) if (ws.readyState === WebSocket.OPEN) ws.send(`{"type":6}${RS}`);
  }, CLIENT_PING_MS);
  return {
    clients,
    reset() {
      for (const c of clients) {
        c.progress = [];
        c.discovered = 0;
      }
    },
    async close() {
      clearInterval(ping);
      await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === WebSocket.CLOSED) return resolve();
              ws.once('close', () => resolve());
              ws.close();
              setTimeout(() => (ws.terminate(), resolve()), 5000).unref();
            }),
        ),
      );
    },
  };
}
