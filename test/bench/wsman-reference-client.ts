/**
 * The interrogation's reference: the same reads done by a bare client in one process, with no worker
 * pool, no store and no scan bookkeeping: per device one keep-alive connection, HTTP Digest (one
 * challenge, then the nonce reused with a growing nc), Get of CIM_SoftwareIdentity InstanceID=AMT,
 * AMT_SetupAndConfigurationService, AMT_GeneralSettings and CIM_ComputerSystemPackage.
 * It is what the simulated devices can serve; the gateway's figure beside it shows its overhead.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  wsa: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  wsman: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  enumeration: 'http://schemas.xmlsoap.org/ws/2004/09/enumeration',
  transfer: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
};

export const classUri = (name: string) =>
  name.startsWith('AMT_') ? `http://intel.com/wbem/wscim/1/amt-schema/1/${name}` : `http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/${name}`;

export function envelope(action: string, className: string, body = '', selector?: [string, string]): string {
  const selectors = selector ? `<w:SelectorSet><w:Selector Name="${selector[0]}">${selector[1]}</w:Selector></w:SelectorSet>` : '';
  return (
    `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="${NS.soap}" xmlns:a="${NS.wsa}" xmlns:w="${NS.wsman}" xmlns:n="${NS.enumeration}">` +
    `<s:Header><a:Action s:mustUnderstand="true">${action}</a:Action><a:To s:mustUnderstand="true">/wsman</a:To>` +
    `<w:ResourceURI s:mustUnderstand="true">${classUri(className)}</w:ResourceURI><a:MessageID>uuid:${randomUUID()}</a:MessageID>` +
    `<a:ReplyTo><a:Address>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address></a:ReplyTo>` +
    `<w:OperationTimeout>PT60S</w:OperationTimeout>${selectors}</s:Header><s:Body>${body}</s:Body></s:Envelope>`
  );
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
export const element = (xml: string, name: string) => new RegExp(`<(?:\\w+:)?${name}>([^<]*)</(?:\\w+:)?${name}>`).exec(xml)?.[1] ?? null;

interface Session {
  realm: string;
  nonce: string;
  nc: number;
}

export interface ReferenceDeviceResult {
  ok: boolean;
  firmwareVersion: string | null;
  provisioningState: string | null;
  hostname: string | null;
  uuid: string | null;
}

function post(agent: Agent, host: string, port: number, body: string, authorization?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port, path: '/wsman', method: 'POST', agent, headers: { 'content-type': 'application/soap+xml;charset=UTF-8', 'content-length': Buffer.byteLength(body), ...(authorization ? { authorization } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A bare client's way to one device: one kept-alive connection, one Digest nonce reused with a growing nc. */
export interface ReferenceSession {
  /** Sends one envelope (answering the device's Digest challenge once), returns the answer's body. */
  send(body: string): Promise<string>;
  close(): void;
}

export function openReferenceSession(host: string, port: number, username: string, password: string): ReferenceSession {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let session: Session | undefined;
  const send = async (body: string): Promise<string> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      let authorization: string | undefined;
      if (session) {
        const nc = (++session.nc).toString(16).padStart(8, '0');
        const cnonce = randomBytes(8).toString('hex');
        const ha1 = md5(`${username}:${session.realm}:${password}`);
        const response = md5(`${ha1}:${session.nonce}:${nc}:${cnonce}:auth:${md5('POST:/wsman')}`);
        authorization = `Digest username="${username}", realm="${session.realm}", nonce="${session.nonce}", uri="/wsman", qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"`;
      }
      const res = await post(agent, host, port, body, authorization);
      if (res.status !== 401) return res.text;
      const challenge = String(res.headers['www-authenticate'] ?? '');
      session = { realm: /realm="([^"]*)"/.exec(challenge)?.[1] ?? '', nonce: /nonce="([^"]*)"/.exec(challenge)?.[1] ?? '', nc: 0 };
    }
    throw new Error(`${host} refused the credentials`);
  };
  return { send, close: () => agent.destroy() };
}

/** Reads one device; HTTP round trips are counted by the simulator, not here. */
export async function readDevice(host: string, port: number, username: string, password: string, extract: (xml: string, name: string) => string | null = element): Promise<ReferenceDeviceResult> {
  const { send, close } = openReferenceSession(host, port, username, password);
  try {
    const firmwareVersion = extract(await send(envelope(`${NS.transfer}/Get`, 'CIM_SoftwareIdentity', '', ['InstanceID', 'AMT'])), 'VersionString');
    const get = (className: string) => send(envelope(`${NS.transfer}/Get`, className));
    const provisioningState = extract(await get('AMT_SetupAndConfigurationService'), 'ProvisioningState');
    const hostname = extract(await get('AMT_GeneralSettings'), 'HostName');
    const uuid = extract(await get('CIM_ComputerSystemPackage'), 'PlatformGUID');
    return { ok: firmwareVersion !== null && provisioningState !== null && hostname !== null, firmwareVersion, provisioningState, hostname, uuid };
  } finally {
    close();
  }
}

/** Reads every address with `concurrency` devices at a time; returns how many were fully read. */
export async function readAll(addresses: string[], port: number, username: string, password: string, concurrency: number): Promise<number> {
  let next = 0;
  let ok = 0;
  const lane = async () => {
    while (next < addresses.length) {
      const address = addresses[next++]!;
      const result = await readDevice(address, port, username, password).catch(() => undefined);
      if (result?.ok) ok++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, addresses.length) }, lane));
  return ok;
}
