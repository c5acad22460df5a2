/**
 * An unprovisioned vPro machine: its firmware (firmware-*.ts), reachable only on its local management
 * port (LMS, where the agent sends what the server relays; on an ephemeral port of the machine's
 * loopback address, so no scan finds it at 16992), and, once a server wrote CIRA settings into it,
 * its tunnel: dialled from exactly those settings (address, port, account, trusted root, the name the
 * certificate must carry), when its rules and environment detection say it should.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimCiraClient } from '../cira-client.js';
import { deviceIdentity } from '../device-identity.js';
import { firmwareRequestHandler } from './firmware-http.js';
import { FirmwareState, LOCAL_ACCOUNT_USER, type FirmwareOptions, type MpServer } from './firmware-state.js';

export interface MachineOptions {
  index: number;
  address: string;
  seed?: string;
  dnsSuffix?: string;
  /** AMT version major.minor.hotfix.build (default 16.1.27.2225). */
  firmwareVersion?: string;
  /** Hashes of the roots the firmware trusts for provisioning (default: a few that match nothing). */
  trustedRootHashes?: string[];
  /** Delay before every answer (ms); `[min, max]` draws one per machine. */
  responseDelayMs?: number | readonly [number, number];
  detectionStrings?: string[];
  dropAfterAdminSetup?: boolean;
  tlsEnforced?: boolean;
  /** Redial delay of a lost tunnel (default 2,000 ms). */
  ciraReconnectMs?: number;
  /** The tunnel is dialled once the CIRA settings stop changing for this long (default 200 ms). */
  ciraSettleMs?: number;
  /** The port the firmware answers on the network once activated (e.g. 16992); default none. */
  networkPort?: number;
}

/** What rpc-go reads from the firmware over HECI for its first message. */
export interface HeciFacts {
  version: string;
  build: string;
  sku: string;
  uuid: string;
  currentMode: 0 | 1 | 2;
  localAccount: { username: string; password: string };
  hostname: string;
  dnsSuffix: string;
  certHashes: string[];
  tlsEnforced: boolean;
}

const FACTORY_ROOTS = ['a', 'b', 'c'].map((s) => createHash('sha256').update(`factory root ${s}`).digest('hex'));

function drawDelay(option: MachineOptions['responseDelayMs'], seed: string): number {
  if (option === undefined) return 0;
  if (typeof option === 'number') return option;
  const [min, max] = option;
  return min + (createHash('sha256').update(seed).digest().readUInt32BE(0) % (max - min + 1));
}

export class SimMachine {
  readonly firmware: FirmwareState;
  cira: SimCiraClient | undefined;
  #lms: Server;
  #lmsPort = 0;
  #network: Server | undefined;
  #networkOpen = false;
  #settle: NodeJS.Timeout | undefined;
  #ciraShape = '';

  constructor(readonly options: MachineOptions) {
    const seed = options.seed ?? 'activation';
    const identity = deviceIdentity(seed, options.index, 'vpro', [options.firmwareVersion ?? '16.1.27.2225']);
    const firmware: FirmwareOptions = {
      index: options.index,
      address: options.address,
      uuid: identity.uuid,
      hostname: identity.hostname,
      dnsSuffix: options.dnsSuffix ?? '',
      firmwareVersion: identity.firmwareVersion,
      realm: identity.realm,
      serial: identity.serial,
      localAccount: { username: LOCAL_ACCOUNT_USER, password: randomBytes(12).toString('base64') },
      trustedRootHashes: options.trustedRootHashes ?? FACTORY_ROOTS,
      responseDelayMs: drawDelay(options.responseDelayMs, `${seed}/${options.index}/delay`),
      detectionStrings: options.detectionStrings ?? [],
      dropAfterAdminSetup: options.dropAfterAdminSetup ?? false,
      tlsEnforced: options.tlsEnforced ?? false,
      seed,
    };
    this.firmware = new FirmwareState(firmware);
    const handler = firmwareRequestHandler(this.firmware);
    this.#lms = createServer({ keepAliveTimeout: 1_000 }, (req, res) => {
      res.once('finish', () => this.#review());
      handler(req, res);
    });
    if (options.networkPort !== undefined) this.#network = createServer({ keepAliveTimeout: 5_000 }, handler);
  }

  get uuid(): string {
    return this.firmware.options.uuid;
  }

  get address(): string {
    return this.options.address;
  }

  get lmsPort(): number {
    return this.#lmsPort;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#lms.once('error', reject);
      this.#lms.listen(0, this.options.address, () => resolve());
    });
    this.#lmsPort = (this.#lms.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    clearTimeout(this.#settle);
    await this.#setNetwork(false);
    await this.cira?.stop();
    this.cira = undefined;
    this.#lms.closeAllConnections();
    await new Promise<void>((resolve) => this.#lms.close(() => resolve()));
  }

  heci(): HeciFacts {
    const [major, minor, hotfix, build] = this.firmware.options.firmwareVersion.split('.');
    return {
      version: `${major}.${minor}.${hotfix}`,
      build: build ?? '0',
      sku: '16392',
      uuid: this.uuid,
      currentMode: this.firmware.controlMode,
      localAccount: this.firmware.options.localAccount,
      hostname: this.firmware.options.hostname,
      dnsSuffix: this.firmware.options.dnsSuffix,
      certHashes: this.firmware.options.trustedRootHashes,
      tlsEnforced: this.firmware.options.tlsEnforced,
    };
  }

  /** The firmware's network face: open while activated (a machine in pre-provisioning answers only locally). */
  async #setNetwork(open: boolean): Promise<void> {
    const server = this.#network;
    if (!server || open === this.#networkOpen) return;
    this.#networkOpen = open;
    if (open) {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.options.networkPort, this.options.address, () => resolve());
      });
    } else {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** After each request: the network face follows the control mode; when the CIRA settings changed, what the firmware does about them is decided once they settle. */
  #review(): void {
    const { cira, controlMode } = this.firmware;
    void this.#setNetwork(controlMode !== 0);
    const shape = JSON.stringify([controlMode, cira.servers, cira.rules, cira.trustedRoots.map((c) => c.fingerprint256), cira.detectionStrings, cira.userInitiated]);
    if (shape === this.#ciraShape) return;
    this.#ciraShape = shape;
    clearTimeout(this.#settle);
    this.#settle = setTimeout(() => void this.#applyCira(), this.options.ciraSettleMs ?? 200);
  }

  /**
   * The server the firmware would dial now: a periodic rule's entry, used from outside the enterprise
   * (the rule's MPS type external or both, and the machine's DNS suffix not among the detection strings).
   */
  dialTarget(): MpServer | null {
    const { cira, controlMode, options } = this.firmware;
    if (controlMode === 0 || cira.trustedRoots.length === 0) return null;
    const inside = options.dnsSuffix !== '' && cira.detectionStrings.some((s) => s.toLowerCase() === options.dnsSuffix.toLowerCase());
    const rule = cira.rules.find((r) => r.trigger === 2 && (inside ? r.mpsType !== 0 : r.mpsType !== 1));
    return (rule && cira.servers.find((s) => s.name === rule.server)) ?? null;
  }

  async #applyCira(): Promise<void> {
    const target = this.dialTarget();
    await this.cira?.stop();
    this.cira = undefined;
    if (!target) return;
    const ca = this.firmware.cira.trustedRoots.map((c) => c.toString()).join('\n');
    this.cira = new SimCiraClient(this.firmware.device, {
      host: target.accessInfo,
      port: target.port,
      username: target.username,
      password: target.password,
      ca,
      expectedCommonName: target.infoFormat === 201 ? target.accessInfo : target.commonName,
      forwardPorts: [16992],
      reconnectMs: this.options.ciraReconnectMs ?? 2_000,
      requestHandler: firmwareRequestHandler(this.firmware),
    });
    this.cira.start();
  }
}
