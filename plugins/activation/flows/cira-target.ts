/**
 * What a device is told so that it dials in here: this gateway's CIRA address (the activation
 * option `ciraAddress`, else the cira plugin's), its server certificate as the root to trust, the
 * name that certificate carries (firmware checks it: against `CommonName` for an IP address, the
 * address itself for a DNS name), and a new MPS account for this device alone.
 */
import { randomUUID, X509Certificate } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { splitHostPort } from '../../../core/net/host-port.js';
import { ActivationErrors } from '../errors.js';
import type { CiraSetup, MpsAddressFormat } from '../device/steps/cira-steps.js';
import type { FlowParts } from './flow-parts.js';

function formatOf(host: string): MpsAddressFormat {
  if (isIPv4(host)) return 3;
  if (isIPv6(host)) return 4;
  return 201;
}

export async function ciraSetupFor(parts: Pick<FlowParts, 'cira' | 'config'>, uuid: string): Promise<CiraSetup> {
  const dialIn = parts.cira?.dialIn();
  if (!parts.cira || !dialIn) throw ActivationErrors.ciraUnavailable();
  const { host, port } = parts.config.ciraAddress ? splitHostPort(parts.config.ciraAddress, dialIn.port) : dialIn;
  const certificate = new X509Certificate(dialIn.certificatePem);
  const commonName = /(?:^|\n)CN=([^\n]*)/.exec(certificate.subject)?.[1] ?? host;
  const account = await parts.cira.provisionAccount(uuid);
  return {
    rootCertificate: certificate.raw.toString('base64'),
    server: { address: host, format: formatOf(host), port, commonName },
    account,
    periodicSeconds: parts.config.ciraPeriodicSeconds,
    // A name under .invalid (RFC 2606) belongs to no network, so the device never finds itself "inside".
    detectionDomain: `${randomUUID()}.invalid`,
  };
}
