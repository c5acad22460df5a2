/** One unauthenticated WS-Management request: what a device gives away without credentials. */
import { randomUUID } from 'node:crypto';
import { parseDigestChallenge, type DigestChallenge } from './digest-challenge.js';
import { AmtError } from './errors.js';
import type { DeviceTransport } from './http-transport.js';
import { buildEnvelope, enumerateRequest } from './wsman-envelope.js';

/**
 * Sends an Enumerate without credentials. An AMT device answers 401 with a Digest challenge (and its
 * firmware version in the `Server` header, which the transport records).
 * @returns the challenge, or null when the device answered without asking for credentials.
 * @throws AmtError `AMT_ERR_BAD_RESPONSE` for a 401 without a Digest challenge, or transport errors.
 */
export async function anonymousProbe(transport: DeviceTransport): Promise<DigestChallenge | null> {
  const xml = buildEnvelope(enumerateRequest('CIM_SoftwareIdentity', `uuid:${randomUUID()}`));
  const response = await transport.request('POST', '/wsman', { 'content-type': 'application/soap+xml;charset=UTF-8' }, xml);
  if (response.status !== 401) return null;
  const challenge = parseDigestChallenge(response.headers['www-authenticate']);
  if (!challenge) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'device answered 401 without a Digest challenge', { status: 401 });
  return challenge;
}
