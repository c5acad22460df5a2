/** A test HTTP server that receives SOAP notifications, optionally failing or hanging first. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseXml } from './soap-test-gateway.js';

export interface ReceivedNotification {
  path: string;
  contentType: string | undefined;
  soapAction: string | undefined;
  body: string;
  /** The notification element's fields (prefixes removed), e.g. `{State, DeviceFqdn, DevicePort}`. */
  fields: Record<string, unknown>;
  element: string;
}

export interface NotificationReceiver {
  url: string;
  /** Accepted notifications, in arrival order. */
  received: ReceivedNotification[];
  /** Every POST that reached the receiver, accepted or not. */
  attempts: number;
  /** TCP connections accepted. */
  connections: number;
  /** Resolves once `count` notifications were accepted; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedNotification[]>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Answer the first N attempts with HTTP 500. */
  failFirst?: number;
  /** Never answer (a dead receiver). */
  hang?: boolean;
  /** Loopback address to listen on; default 127.0.0.1. */
  host?: string;
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<NotificationReceiver> {
  const received: ReceivedNotification[] = [];
  const open = new Set<ServerResponse>();
  let attempts = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      attempts++;
      receiver.attempts = attempts;
      if (options.hang) {
        open.add(res);
        return;
      }
      if (attempts <= (options.failFirst ?? 0)) {
        res.statusCode = 500;
        res.end('try again');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const bodyElement = (parseXml(body)?.Envelope?.Body ?? {}) as Record<string, Record<string, unknown>>;
      const element = Object.keys(bodyElement).find((k) => !k.startsWith('@_')) ?? '';
      const fields = Object.fromEntries(Object.entries(bodyElement[element] ?? {}).filter(([k]) => !k.startsWith('@_')));
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], soapAction: req.headers.soapaction as string | undefined, body, fields, element });
      res.end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const receiver: NotificationReceiver = {
    url: `http://${host}:${(server.address() as AddressInfo).port}/notify`,
    received,
    attempts: 0,
    connections: 0,
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} notification(s), got ${received.length} after ${timeoutMs} ms`);
        await sleep(20);
      }
      return received.slice(0, count);
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}
