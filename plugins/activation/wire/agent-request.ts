/**
 * What an agent asks for in its first message: the command line rpc-go puts in `method`
 * (`activate --profile NAME`, `deactivate --password PW [-f]`, `maintenance -password PW --synctime`,
 * `... --changepassword [NEW]`), and the facts it read from the firmware over HECI in `payload`.
 * The `password` there is the firmware's local system account (an unprovisioned device) or the
 * device's AMT password as the operator typed it (an activated one): secrets, never logged.
 */
import { ActivationErrors } from '../errors.js';
import { payloadObject, type RpsEnvelope } from './rps-message.js';

export type MaintenanceTask = 'changepassword' | 'synctime' | 'synchostname' | 'syncip' | 'syncdeviceinfo';

/** What the firmware told the agent (rpc-go's activation payload). */
export interface DeviceFacts {
  /** Lower-case canonical UUID. */
  uuid: string;
  /** AMT version, e.g. `16.1.25`. */
  version: string;
  build: string;
  sku: string;
  /** 0 pre-provisioning, 1 client control mode, 2 admin control mode. */
  currentMode: 0 | 1 | 2;
  hostname: string;
  /** The DNS suffix the firmware (or the OS) has: what admin control mode matches domains by. */
  dnsSuffix: string;
  /** Hashes (hex, lower case) of the root certificates the firmware trusts for provisioning. */
  certHashes: string[];
  /** `username`/`password` of the payload: the local system account, or the typed AMT password. */
  account: { username: string; password: string } | null;
  /** The agent's name (`RPC`). */
  client: string;
  /** The firmware accepts local management only over TLS (AMT 19+). */
  tlsEnforced: boolean;
}

export type AgentRequest =
  | { action: 'activate'; profile: string; facts: DeviceFacts }
  | { action: 'deactivate'; facts: DeviceFacts; force: boolean; password: string | null }
  | { action: 'maintenance'; task: MaintenanceTask; facts: DeviceFacts; force: boolean; password: string | null; newPassword: string | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** UUIDs firmware reports when its state is broken (rpc-go refuses them too). */
const INVALID_UUIDS = new Set(['00000000-0000-0000-0000-000000000000', '03000200-0400-0500-0006-000700080009']);
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const TASKS: readonly MaintenanceTask[] = ['changepassword', 'synctime', 'synchostname', 'syncip', 'syncdeviceinfo'];
const VALUE_FLAGS = new Set(['profile', 'password', 'p', 'text', 't']);

interface CommandLine {
  command: string;
  values: Map<string, string>;
  switches: Set<string>;
  /** The word after `--changepassword`, when one follows. */
  changePasswordTo: string | null;
}

/** Reads the command line the agent sends as `method`, tolerating `-flag` and `--flag` alike. */
function parseCommandLine(method: string): CommandLine {
  const words = method.trim().split(/\s+/);
  const command = (words.shift() ?? '').toLowerCase();
  const values = new Map<string, string>();
  const switches = new Set<string>();
  let changePasswordTo: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const flag = /^--?([A-Za-z][A-Za-z0-9]*)$/.exec(words[i]!)?.[1]?.toLowerCase();
    if (!flag) continue;
    if (VALUE_FLAGS.has(flag)) {
      if (i + 1 < words.length) values.set(flag === 'p' ? 'password' : flag, words[++i]!);
      continue;
    }
    switches.add(flag);
    // rpc-go writes `--changepassword NEW` for a static password; a flag word after it is the next flag.
    if (flag === 'changepassword' && i + 1 < words.length && !/^--?(f|force|synctime|syncip|synchostname|syncdeviceinfo)$/i.test(words[i + 1]!)) changePasswordTo = words[++i]!;
  }
  return { command, values, switches, changePasswordTo };
}

const text = (payload: Record<string, unknown>, name: string, max: number): string => {
  const value = payload[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw ActivationErrors.badMessage(`payload ${name} is not text`);
  if (value.length > max) throw ActivationErrors.badMessage(`payload ${name} is longer than ${max}`);
  return value;
};

/** The firmware's facts from the payload, checked. */
export function deviceFacts(payload: Record<string, unknown>): DeviceFacts {
  const uuid = text(payload, 'uuid', 36).toLowerCase();
  if (!UUID.test(uuid)) throw ActivationErrors.badMessage('payload uuid is not a UUID');
  if (INVALID_UUIDS.has(uuid)) throw ActivationErrors.badMessage('payload uuid is one firmware reports when its state is invalid');
  const version = text(payload, 'ver', 32);
  if (!/^\d{1,3}(\.\d{1,5}){0,3}$/.test(version)) throw ActivationErrors.badMessage('payload ver is not a firmware version');
  const mode = payload['currentMode'];
  if (mode !== 0 && mode !== 1 && mode !== 2) throw ActivationErrors.badMessage('payload currentMode is not 0, 1 or 2');
  const hashes = payload['certHashes'];
  if (hashes !== undefined && hashes !== null && (!Array.isArray(hashes) || hashes.length > 256 || !hashes.every((h) => typeof h === 'string' && /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[0-9a-fA-F]{96})$/.test(h)))) {
    throw ActivationErrors.badMessage('payload certHashes is not a list of SHA-1, SHA-256 or SHA-384 hashes');
  }
  const username = text(payload, 'username', 256);
  const password = text(payload, 'password', 256);
  return {
    uuid,
    version,
    build: text(payload, 'build', 32),
    sku: text(payload, 'sku', 32),
    currentMode: mode,
    hostname: text(payload, 'hostname', 255),
    dnsSuffix: text(payload, 'fqdn', 255).trim().replace(/\.$/, '').toLowerCase(),
    certHashes: ((hashes as string[] | undefined) ?? []).map((h) => h.toLowerCase()),
    account: password ? { username, password } : null,
    client: text(payload, 'client', 64),
    tlsEnforced: payload['tlsEnforced'] === true || payload['tlsTunnel'] === true,
  };
}

/**
 * The agent's request from its first message.
 * @throws `GW_ERR_ACTIVATION_BAD_MESSAGE` for a command or payload that is not rpc-go's
 */
export function agentRequest(envelope: RpsEnvelope): AgentRequest {
  const line = parseCommandLine(envelope.method);
  const facts = deviceFacts(payloadObject(envelope));
  const force = line.switches.has('f') || line.switches.has('force');
  // The payload's password is what rpc-go read or was given; the command line repeats the typed one.
  const typed = line.values.get('password') ?? null;
  switch (line.command) {
    case 'activate': {
      const profile = line.values.get('profile') ?? '';
      if (!PROFILE_NAME.test(profile)) throw ActivationErrors.badMessage('no profile named (activate --profile NAME)');
      return { action: 'activate', profile, facts };
    }
    case 'deactivate':
      return { action: 'deactivate', facts, force, password: facts.account?.password ?? typed };
    case 'maintenance': {
      const task = TASKS.find((t) => line.switches.has(t) || (t === 'synctime' && line.switches.has('syncclock')));
      if (!task) throw ActivationErrors.badMessage('no maintenance task named');
      return { action: 'maintenance', task, facts, force, password: facts.account?.password ?? typed, newPassword: task === 'changepassword' ? line.changePasswordTo : null };
    }
    default:
      throw ActivationErrors.badMessage('the command is not activate, deactivate or maintenance');
  }
}
