/**
 * Task `wsman-check`: one diagnostic WS-Management exchange with an address, for
 * `GET /api/test/test-wsman/{ip}`. Tries the HTTP port, then the TLS port. With a credential it signs
 * in and reads firmware version, provisioning state and hostname; without, it sends an unauthenticated
 * request and reports what the device's answer (a Digest challenge, a `Server` header) gives away.
 */
import type { TaskTools } from '../task-api.js';
import { toAmtFailure } from '../amt/errors.js';
import { anonymousProbe } from '../amt/anonymous-probe.js';
import { DEFAULT_PORTS } from '../amt/device-target.js';
import { openTransport } from '../amt/open-transport.js';
import type { DeviceTransport } from '../amt/http-transport.js';
import { WsmanClient } from '../amt/wsman-client.js';
import { readFirmwareVersion } from '../amt/reads/firmware.js';
import { readProvisioning } from '../amt/reads/provisioning.js';
import { readGeneralSettings } from '../amt/reads/general-settings.js';
import { parseServerVersion } from '../amt/reads/server-version.js';
import type { WsmanCheckInput, WsmanCheckOutput } from './task-types.js';

export default async function wsmanCheck(input: WsmanCheckInput, tools: TaskTools): Promise<WsmanCheckOutput> {
  const started = performance.now();
  const out: WsmanCheckOutput = {
    ipAddress: input?.address,
    reachable: false,
    port: null,
    tls: false,
    authenticated: false,
    firmwareVersion: null,
    serverVersion: null,
    provisioningState: null,
    hostname: null,
    tlsFingerprint: null,
    tlsProtocol: null,
    failedLogins: 0,
    elapsedMs: 0,
  };
  const candidates: Array<[number, boolean]> = [
    [input?.ports?.http ?? DEFAULT_PORTS.http, false],
    [input?.ports?.https ?? DEFAULT_PORTS.https, true],
  ];
  for (const [port, tls] of candidates) {
    if (port <= 0) continue;
    let transport: DeviceTransport | undefined;
    try {
      transport = openTransport(
        { address: input.address, port, tls, timeouts: input.timeouts, maxResponseBytes: input.maxResponseBytes, tlsTrust: input.tlsTrust, pinnedFingerprint: input.pinnedFingerprint ?? null, ...(input.channel ? { channel: input.channel } : {}) },
        tools.signal,
      );
      if (input.credential) {
        const maxFailed = input.credential.maxFailedLogins;
        const authBudget = typeof maxFailed === 'number' && maxFailed >= 1 ? { failuresLeft: Math.floor(maxFailed) } : undefined;
        const client = new WsmanClient({ transport, credentials: input.credential, ...(authBudget ? { authBudget } : {}) });
        try {
          out.firmwareVersion = await readFirmwareVersion(client);
          out.authenticated = true;
          out.provisioningState = (await readProvisioning(client)).provisioningStateName;
          out.hostname = (await readGeneralSettings(client)).hostName;
        } finally {
          out.failedLogins += client.failedLogins;
        }
      } else {
        await anonymousProbe(transport);
      }
      delete out.error;
    } catch (error) {
      out.error = toAmtFailure(error);
    } finally {
      out.serverVersion = parseServerVersion(transport?.serverHeader) ?? out.serverVersion;
      out.tlsFingerprint = transport?.observedFingerprint ?? out.tlsFingerprint;
      out.tlsProtocol = transport?.tlsProtocol ?? out.tlsProtocol;
      const answered = (transport?.roundTrips ?? 0) > 0 && out.error?.code !== 'AMT_ERR_CONNECT' && out.error?.code !== 'AMT_ERR_INVALID_INPUT';
      if (answered) {
        out.reachable = true;
        out.port = port;
        out.tls = tls;
      }
      await transport?.close();
    }
    if (out.reachable || out.error?.code === 'AMT_ERR_INVALID_INPUT' || out.error?.code === 'AMT_ERR_CANCELLED') break;
  }
  if (!input?.credential && out.reachable && !out.error) out.firmwareVersion = out.serverVersion;
  out.elapsedMs = Math.round(performance.now() - started);
  return out;
}
