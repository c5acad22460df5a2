/**
 * Task `interrogate`: one attempt to sign in to one device with the one credential it is given
 * (the device gate chose it and bounds its failed logins), then the scan items: firmware version,
 * provisioning state and mode, hostname and domain, UUID. A device that refuses the credential, or
 * a task without one, is reported `unauthorized` with the firmware version its `Server` header gives away.
 */
import type { TaskTools } from '../task-api.js';
import { anonymousProbe } from '../amt/anonymous-probe.js';
import { AmtError, toAmtFailure, type AmtFailure } from '../amt/errors.js';
import { DEFAULT_PORTS, type DeviceTarget } from '../amt/device-target.js';
import { openTransport } from '../amt/open-transport.js';
import type { DeviceTransport } from '../amt/http-transport.js';
import { WsmanClient } from '../amt/wsman-client.js';
import { readFirmwareVersion } from '../amt/reads/firmware.js';
import { readProvisioning } from '../amt/reads/provisioning.js';
import { readGeneralSettings } from '../amt/reads/general-settings.js';
import { readPlatformUuid } from '../amt/reads/uuid.js';
import { parseServerVersion } from '../amt/reads/server-version.js';
import type { InterrogateInput, InterrogateOutput } from './task-types.js';

/** Errors that concern the device as a whole: after one of these no further read is tried. */
const DEVICE_WIDE = new Set([
  'AMT_ERR_CONNECT',
  'AMT_ERR_CONNECTION_LOST',
  'AMT_ERR_TIMEOUT',
  'AMT_ERR_TLS',
  'AMT_ERR_TLS_PIN_MISMATCH',
  'AMT_ERR_CANCELLED',
  'AMT_ERR_UNAUTHORIZED',
  'AMT_ERR_LOCKED_OUT',
]);

function chooseTls(input: InterrogateInput, httpPort: number, httpsPort: number): boolean {
  if (typeof input.tls === 'boolean') return input.tls;
  const open = input.openPorts ?? [];
  return open.includes(httpsPort) && !open.includes(httpPort);
}

function emptyOutput(input: InterrogateInput, port: number, tls: boolean): InterrogateOutput {
  return {
    address: typeof input?.address === 'string' ? input.address : '',
    port,
    tls,
    authStatus: 'error',
    credentialId: null,
    attempts: 0,
    refusedCredentialIds: [],
    failedLogins: 0,
    firmwareVersion: null,
    serverVersion: null,
    provisioningState: null,
    provisioningStateName: null,
    provisioningMode: null,
    provisioningModeName: null,
    hostname: null,
    domain: null,
    digestRealm: null,
    uuid: null,
    tlsFingerprint: null,
    tlsProtocol: null,
    roundTrips: 0,
    elapsedMs: 0,
    error: null,
    readErrors: {},
  };
}

function statusFor(failure: AmtFailure): InterrogateOutput['authStatus'] {
  if (failure.code === 'AMT_ERR_UNAUTHORIZED' || failure.code === 'AMT_ERR_LOCKED_OUT') return 'unauthorized';
  if (failure.code === 'AMT_ERR_CONNECT') return 'unreachable';
  return 'error';
}

/**
 * The first read, which signs in: null when the credential worked (a read-specific failure is
 * kept), else the failure. Only a well-formed WS-Management answer proves a sign-in.
 */
async function signIn(client: WsmanClient, out: InterrogateOutput): Promise<AmtFailure | null> {
  try {
    out.firmwareVersion = await readFirmwareVersion(client);
    return null;
  } catch (error) {
    const failure = toAmtFailure(error);
    if (failure.code === 'AMT_ERR_UNAUTHORIZED' || DEVICE_WIDE.has(failure.code) || !client.authenticated) return failure;
    // The credential worked but the firmware read did not: keep going with the other reads.
    out.readErrors.firmware = failure;
    return null;
  }
}

/** Runs the reads after sign-in; a read-specific failure is kept, a device-wide one ends the reads. */
async function readRest(client: WsmanClient, out: InterrogateOutput, readUuid: boolean): Promise<void> {
  const reads: Array<[keyof InterrogateOutput['readErrors'], () => Promise<void>]> = [
    [
      'provisioning',
      async () => {
        const p = await readProvisioning(client);
        Object.assign(out, p);
      },
    ],
    [
      'generalSettings',
      async () => {
        const g = await readGeneralSettings(client);
        out.hostname = g.hostName;
        out.domain = g.domainName;
        out.digestRealm = g.digestRealm;
      },
    ],
  ];
  if (readUuid) reads.push(['uuid', async () => void (out.uuid = await readPlatformUuid(client))]);
  for (const [name, read] of reads) {
    try {
      await read();
    } catch (error) {
      const failure = toAmtFailure(error);
      if (DEVICE_WIDE.has(failure.code)) {
        out.error = failure;
        return;
      }
      out.readErrors[name] = failure;
    }
  }
}

export default async function interrogate(input: InterrogateInput, tools: TaskTools): Promise<InterrogateOutput> {
  const started = performance.now();
  const httpPort = input?.ports?.http ?? DEFAULT_PORTS.http;
  const httpsPort = input?.ports?.https ?? DEFAULT_PORTS.https;
  const tls = chooseTls(input ?? ({} as InterrogateInput), httpPort, httpsPort);
  const port = tls ? httpsPort : httpPort;
  const out = emptyOutput(input, port, tls);
  const credential = input?.credential && typeof input.credential.username === 'string' && typeof input.credential.password === 'string' ? input.credential : null;
  const target: DeviceTarget = {
    address: input?.address,
    port,
    tls,
    timeouts: input?.timeouts,
    maxResponseBytes: input?.maxResponseBytes,
    tlsTrust: input?.tlsTrust,
    pinnedFingerprint: input?.pinnedFingerprint ?? null,
    ...(input?.channel ? { channel: input.channel } : {}),
  };
  let transport: DeviceTransport | undefined;
  try {
    transport = openTransport(target, tools.signal);
    if (!credential) {
      // Nothing to sign in with: learn what an unauthenticated request gives away (the Server header).
      await anonymousProbe(transport);
      throw new AmtError('AMT_ERR_UNAUTHORIZED', 'no credentials to sign in with');
    }
    out.attempts = 1;
    const client = new WsmanClient({ transport, credentials: credential, authBudget: { failuresLeft: Math.max(1, credential.maxFailedLogins ?? 2) } });
    let lastFailure: AmtFailure | null = null;
    try {
      lastFailure = await signIn(client, out);
      if (lastFailure === null) {
        out.authStatus = 'ok';
        out.credentialId = credential.id;
        await readRest(client, out, input.readUuid !== false);
      } else if (lastFailure.code === 'AMT_ERR_UNAUTHORIZED') out.refusedCredentialIds.push(credential.id);
    } finally {
      // Whichever way the attempt ended, the failed logins it caused count.
      out.failedLogins += client.failedLogins;
    }
    if (out.authStatus !== 'ok' && lastFailure) {
      out.error = lastFailure;
      out.authStatus = statusFor(lastFailure);
    }
  } catch (error) {
    out.error = toAmtFailure(error);
    out.authStatus = statusFor(out.error);
  } finally {
    out.serverVersion = parseServerVersion(transport?.serverHeader);
    // What the 401 told (the Server header) is kept for every device, whatever became of the sign-in.
    if (out.firmwareVersion === null) out.firmwareVersion = out.serverVersion;
    out.tlsFingerprint = transport?.observedFingerprint ?? null;
    out.tlsProtocol = transport?.tlsProtocol ?? null;
    out.roundTrips = transport?.roundTrips ?? 0;
    out.elapsedMs = Math.round(performance.now() - started);
    await transport?.close();
  }
  return out;
}
