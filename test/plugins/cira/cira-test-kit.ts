/**
 * A real CIRA server for tests (real LevelDB in a temp directory, real sealer, the generated
 * self-signed certificate, a TLS listener on loopback port 0) and a raw APF device that speaks
 * through the simulator's independent codec (test/sim/cira-apf.ts), byte by byte when asked.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as netConnect, type Socket } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';
import { createLogger } from '../../../core/log/logger.js';
import { createSealer } from '../../../core/secrets/sealer.js';
import { openStore } from '../../../core/store/level-store.js';
import { createAjv } from '../../../core/validation/validator.js';
import { openAccountStore, type AccountStore } from '../../../plugins/cira/accounts/account-store.js';
import { openBindingStore, type BindingStore } from '../../../plugins/cira/identity/uuid-bindings.js';
import { CIRA_CONFIG_SCHEMA, type CiraConfig } from '../../../plugins/cira/config.js';
import { createCiraServer, type CiraServer } from '../../../plugins/cira/server/cira-server.js';
import { loadServerCertificate } from '../../../plugins/cira/server/server-certificate.js';
import { ApfReader, encode, type ServerMessage } from '../../sim/cira-apf.js';

export const MPS_USER = 'mps-user';
export const MPS_PASSWORD = 'mps-password-1';

/** The plugin options with the schema's defaults applied, then `overrides`. */
export function ciraConfig(overrides: Record<string, unknown> = {}): CiraConfig {
  const config: Record<string, unknown> = { port: 0, ...overrides };
  const validate = createAjv({ useDefaults: true }).compile(CIRA_CONFIG_SCHEMA);
  if (!validate(config)) throw new Error(JSON.stringify(validate.errors));
  return config as unknown as CiraConfig;
}

export interface TestCiraServer {
  server: CiraServer;
  accounts: AccountStore;
  bindings: BindingStore;
  port: number;
  logs: string[];
  /** Holds the generated certificate pair in `cira/`. */
  dataDir: string;
  close(): Promise<void>;
}

export async function startCiraServer(overrides: Record<string, unknown> = {}, sweepIntervalMs = 100): Promise<TestCiraServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-cira-'));
  const store = await openStore(dataDir);
  const secrets = createSealer(randomBytes(32));
  const accounts = await openAccountStore(store.namespace('cira').namespace('accounts'), secrets);
  await accounts.create({ username: MPS_USER, password: MPS_PASSWORD });
  const bindings = await openBindingStore(store.namespace('cira').namespace('bindings'));
  const certificate = await loadServerCertificate({ cert: null, key: null }, dataDir);
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });
  const server = createCiraServer({ config: ciraConfig(overrides), host: '127.0.0.1', certificate, accounts, bindings, logger, sweepIntervalMs });
  await server.listen();
  return {
    server,
    accounts,
    bindings,
    port: server.service.address()?.port ?? 0,
    logs,
    dataDir,
    async close() {
      await server.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A device end of a tunnel, driven message by message by the test. */
export class RawDevice {
  private readonly reader = new ApfReader();
  private readonly inbox: ServerMessage[] = [];
  private waiter: (() => void) | null = null;
  readonly closed: Promise<void>;
  isClosed = false;
  /** Every byte received, as hex, for checks the message reader cannot make. */
  rawBytes = '';
  readerError: Error | null = null;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.rawBytes += chunk.toString('hex');
      try {
        if (!this.readerError) this.inbox.push(...this.reader.push(chunk));
      } catch (err) {
        // The simulator's reader knows only the replies a device expects; tests that go beyond read rawBytes.
        this.readerError = err as Error;
      }
      this.waiter?.();
    });
    this.closed = new Promise((resolve) => socket.once('close', () => {
      this.isClosed = true;
      this.waiter?.();
      resolve();
    }));
    socket.on('error', () => undefined);
  }

  /**
   * Connects over TLS from `localAddress` (each device its own 127.x.y.z); TLS 1.2 as AMT firmware
   * speaks it unless `tls` says otherwise.
   */
  static connect(port: number, localAddress = '127.0.0.1', tls: Pick<ConnectionOptions, 'minVersion' | 'maxVersion' | 'ciphers'> = { maxVersion: 'TLSv1.2' }): Promise<RawDevice> {
    return new Promise((resolve, reject) => {
      const tcp = netConnect({ host: '127.0.0.1', port, localAddress });
      tcp.once('error', reject);
      const socket = connect({ socket: tcp, rejectUnauthorized: false, ...tls }, () => resolve(new RawDevice(socket)));
      socket.once('error', reject);
    });
  }

  /** A device over a connection the test made itself: TLS through a pipe that alters bytes, plain APF behind a PROXY header. */
  static over(socket: Socket): RawDevice {
    return new RawDevice(socket);
  }

  send(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages));
  }

  /** The next message from the server that `match` accepts (earlier ones are dropped); null if the socket closed first. */
  next(match: (m: ServerMessage) => boolean = () => true, timeoutMs = 5000): Promise<ServerMessage | null> {
    return this.#await(match, timeoutMs, true);
  }

  /**
   * The first message `match` accepts, the others left for later calls: for the handshake, whose
   * replies may come interleaved with what a test waits for next (the keep-alive options the
   * server sends once the forwards settle can come before the last forward's reply).
   */
  take(match: (m: ServerMessage) => boolean, timeoutMs = 5000): Promise<ServerMessage | null> {
    return this.#await(match, timeoutMs, false);
  }

  async #await(match: (m: ServerMessage) => boolean, timeoutMs: number, dropOthers: boolean): Promise<ServerMessage | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (dropOthers) {
        while (this.inbox.length) {
          const message = this.inbox.shift()!;
          if (match(message)) return message;
        }
      } else {
        const at = this.inbox.findIndex(match);
        if (at >= 0) return this.inbox.splice(at, 1)[0]!;
      }
      if (this.isClosed) return null;
      if (Date.now() > deadline) throw new Error('no matching APF message in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
  }

  /** PROTOCOLVERSION, auth service, password; resolves with the server's answer. */
  async signIn(uuid: string, username = MPS_USER, password = MPS_PASSWORD): Promise<ServerMessage | null> {
    this.send(encode.protocolVersion(uuid), encode.serviceRequest('auth@amt.intel.com'));
    await this.next((m) => m.type === 'service-accept');
    this.send(encode.userauthPassword(username, password));
    return this.next((m) => m.type === 'userauth-success' || m.type === 'userauth-failure');
  }

  /** The whole handshake up to the keep-alive options (the tunnel is then up). */
  async handshake(uuid: string, ports = [16992], username = MPS_USER, password = MPS_PASSWORD): Promise<void> {
    const answer = await this.signIn(uuid, username, password);
    if (answer?.type !== 'userauth-success') throw new Error(`sign-in failed: ${JSON.stringify(answer)}`);
    this.send(encode.serviceRequest('pfwd@amt.intel.com'));
    await this.take((m) => m.type === 'service-accept');
    for (const port of ports) {
      this.send(encode.tcpipForward(port));
      const reply = await this.take((m) => m.type === 'request-success');
      if (reply?.type !== 'request-success' || reply.port !== port) throw new Error(`forward of ${port} not confirmed`);
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}


export const uuidOf = (n: number) => `${n.toString(16).padStart(8, '0')}-1111-2222-3333-444455556666`;
