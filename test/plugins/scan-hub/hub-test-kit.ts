/**
 * Shared parts of the scan-hub tests: a gateway with the hub and the event-source fixture,
 * the real SignalR client with an event recorder, and a raw `ws` client that speaks the protocol by
 * hand.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { HubConnectionBuilder, HttpTransportType, LogLevel, type HubConnection, type IRetryPolicy } from '@microsoft/signalr';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../../helpers/gateway-harness.js';
import { until } from '../../helpers/poll.js';
import type { HubConfig } from '../../../plugins/scan-hub/config.js';
import { HUB_EVENT_COMPONENTS } from '../../../plugins/scan-hub/hub-event-shapes.js';
import { responseContract } from '../../helpers/response-contract.js';
import type { FixtureScanRequest } from './fixtures/event-source-plugin.js';

export const EVENT_SOURCE_PLUGIN = fileURLToPath(new URL('./fixtures/event-source-plugin.ts', import.meta.url));
export const RS = '\x1e';
export const HUB_TARGETS = Object.keys(HUB_EVENT_COMPONENTS);

export interface HubGatewayOptions extends Omit<TestGatewayOptions, 'plugins' | 'overrides'> {
  hub?: Partial<HubConfig>;
  /** More plugins to enable besides scan-hub (built-in names). */
  plugins?: string[];
  overrides?: Record<string, unknown>;
  port?: number;
}

/**
 * A gateway with scan-hub (configured with `hub`), rest-api (it owns the permissions that see scan
 * events) and the event-source fixture plugin.
 */
export function startHubGateway(options: HubGatewayOptions = {}): Promise<TestGateway> {
  const { hub = {}, plugins = [], overrides = {}, port, ...rest } = options;
  return startTestGateway({
    ...rest,
    plugins: [...new Set(['scan-hub', 'rest-api', ...plugins])],
    overrides: {
      ...overrides,
      ...(port === undefined ? {} : { server: { host: '127.0.0.1', port } }),
      plugins: {
        ...(overrides.plugins as Record<string, unknown> | undefined),
        'scan-hub': { enable: true, options: hub },
        'event-source': { enable: true, path: EVENT_SOURCE_PLUGIN },
      },
    },
  });
}

/** Plays a fixture scan; returns its id. */
export async function playScan(gw: TestGateway, token: string, request: FixtureScanRequest): Promise<string> {
  const res = await gw.request('POST', '/api/event-source/scan', { token, body: request });
  if (res.status !== 202) throw new Error(`fixture scan refused: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Publishes events on the gateway's bus, in order. */
export async function publish(gw: TestGateway, token: string, events: Array<{ name: string; payload: Record<string, unknown> }>): Promise<void> {
  const res = await gw.request('POST', '/api/event-source/publish', { token, body: { events } });
  if (res.status !== 200) throw new Error(`fixture publish refused: ${res.status} ${await res.text()}`);
}


/** One event a SignalR client received. */
export interface Received {
  target: string;
  arg: Record<string, unknown>;
}

export interface ClientOptions {
  /** Appended to `baseUrl`; default `/scanHub`. */
  hubPath?: string;
  skipNegotiation?: boolean;
  reconnect?: IRetryPolicy;
  serverTimeoutMs?: number;
}

/** A started `@microsoft/signalr` client that records every hub event it receives, in order. */
export async function connectSignalR(baseUrl: string, token: string | undefined, options: ClientOptions = {}): Promise<{ connection: HubConnection; received: Received[] }> {
  let builder = new HubConnectionBuilder()
    .withUrl(`${baseUrl}${options.hubPath ?? '/scanHub'}`, {
      ...(token === undefined ? {} : { accessTokenFactory: () => token }),
      ...(options.skipNegotiation ? { skipNegotiation: true, transport: HttpTransportType.WebSockets } : {}),
    })
    .configureLogging(LogLevel.None);
  if (options.reconnect) builder = builder.withAutomaticReconnect(options.reconnect);
  if (options.serverTimeoutMs) builder = builder.withServerTimeout(options.serverTimeoutMs);
  const connection = builder.build();
  const received: Received[] = [];
  for (const target of HUB_TARGETS) connection.on(target, (arg: Record<string, unknown>) => received.push({ target, arg }));
  await connection.start();
  return { connection, received };
}

/**
 * Holds every event a client received to the schema of its payload: the OpenAPI component the
 * publishing plugin documents it with (HUB_EVENT_COMPONENTS), closed to undocumented fields.
 */
export async function assertHubShapes(baseUrl: string, received: readonly Received[]): Promise<void> {
  const contract = responseContract(baseUrl);
  for (const { target, arg } of received) {
    const component = HUB_EVENT_COMPONENTS[target as keyof typeof HUB_EVENT_COMPONENTS];
    assert.ok(component, `the hub sent ${target}, an event it does not document`);
    await contract.checkComponent(component, arg, `the hub's ${target}`);
  }
}

/**
 * A barrier: once a hub invocation sent now is answered, every event published before it has reached
 * this client (the fan-out is synchronous and the socket is ordered).
 */
export async function settle(connection: HubConnection): Promise<void> {
  await connection.invoke('UnsubscribeScan', 'settle-barrier');
}

/** The upgrade's HTTP status when the server refuses it, or 101 when it accepts. */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

/** A hand-driven hub client over `ws`: sends raw text frames, parses what comes back into records. */
export class RawHubClient {
  /** Every record received, parsed, in order. */
  readonly records: Array<Record<string, unknown>> = [];
  /** For each WebSocket message received, how many records it completed. */
  readonly recordsPerFrame: number[] = [];
  private tail = '';
  readonly closed: Promise<number>;
  private isClosed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const parts = (this.tail + data.toString('utf8')).split(RS);
      this.tail = parts.pop()!;
      for (const part of parts) this.records.push(JSON.parse(part) as Record<string, unknown>);
      this.recordsPerFrame.push(parts.length);
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code) => {
        this.isClosed = true;
        resolve(code);
      }),
    );
    ws.on('error', () => undefined);
  }

  /** Opens a socket to `url` (e.g. `ws://…/scanHub?access_token=…`). */
  static open(url: string, headers: Record<string, string> = {}): Promise<RawHubClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('open', () => resolve(new RawHubClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Opens a socket and completes the JSON handshake. */
  static async connect(url: string, headers: Record<string, string> = {}): Promise<RawHubClient> {
    const client = await RawHubClient.open(url, headers);
    client.send(`{"protocol":"json","version":1}${RS}`);
    await client.waitForRecords(1);
    if (Object.keys(client.records[0]!).length !== 0) throw new Error(`handshake refused: ${JSON.stringify(client.records[0])}`);
    client.records.shift();
    return client;
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  send(text: string): void {
    this.ws.send(text);
  }

  async waitForRecords(count: number, timeoutMs = 10_000): Promise<void> {
    await until(`${count} records (got ${JSON.stringify(this.records).slice(0, 300)})`, () => this.records.length >= count, timeoutMs);
  }

  /** Stops reading from the socket, as a stalled client would. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.ws.terminate();
  }

  private get socket(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket;
  }
}

/** The hub's WebSocket URL of a gateway, with a query string. */
export function hubUrl(gw: TestGateway, query: Record<string, string> = {}): string {
  const qs = new URLSearchParams(query).toString();
  return `${gw.url.replace(/^http/, 'ws')}/scanHub${qs ? `?${qs}` : ''}`;
}
