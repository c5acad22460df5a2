import { escapeXml, soapEnvelope } from './soap-envelope.js';

/** Local name of the notification element, in the service namespace. */
export const NOTIFICATION_ELEMENT = 'ConnectionStateChanged';

/** A connect or disconnect, with the fields of Intel's presence-server notification (AMT-NOTES, "MPS notifications"). */
export interface MachineNotification {
  /** 0 connected, 1 disconnected. */
  state: 0 | 1;
  deviceFqdn: string;
  /** Management ports, at most two. */
  devicePorts: number[];
  deviceUuid: string | null;
  /** The gateway's address as the device's management server. */
  mpsAddress: string;
}

/** The SOAP 1.1 notification POSTed to each subscriber. Optional fields the gateway has no value for are left out. */
export function notificationEnvelope(ns: string, n: MachineNotification): string {
  const field = (name: string, value: string) => `<mps:${name}>${escapeXml(value)}</mps:${name}>`;
  return soapEnvelope(
    `<mps:${NOTIFICATION_ELEMENT} xmlns:mps="${escapeXml(ns)}">` +
      field('State', String(n.state)) +
      field('DeviceFqdn', n.deviceFqdn) +
      n.devicePorts.slice(0, 2).map((p) => field('DevicePort', String(p))).join('') +
      field('DeviceUuid', n.deviceUuid ?? '') +
      field('MpsAddress', n.mpsAddress) +
      field('WantReply', 'false') +
      `</mps:${NOTIFICATION_ELEMENT}>`,
  );
}
