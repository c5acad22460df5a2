/** The simulator behaves on the wire like an AMT device (AMT-NOTES), so client tests prove something. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startFleet, type Fleet } from '../sim/index.js';
import { fleetAddresses } from '../sim/address-range.js';
import { DEFAULT_PASSWORD } from './helpers.js';

let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ count: 4, base: '127.20.8.1', rmcpPort: 0, seed: 'wire', tlsEvery: 4, altPasswordEvery: 2, provisioningStates: [2, 1], chunkSize: 64 });
});
after(() => fleet?.stop());

/** Sends raw bytes and returns everything the device sends until it closes (or 2 s pass). */
function raw(address: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port: 16992 });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 2_000);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(request);
  });
}

const SOAP = (uri: string) =>
  `<?xml version="1.0" encoding="utf-8"?><Envelope xmlns="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd"><Header><a:Action>http://schemas.xmlsoap.org/ws/2004/09/transfer/Get</a:Action><a:To>/wsman</a:To><w:ResourceURI>${uri}</w:ResourceURI><a:MessageID>42</a:MessageID></Header><Body/></Envelope>`;

function post(address: string, body: string, authorization?: string): string {
  return (
    `POST /wsman HTTP/1.1\r\nHost: ${address}:16992\r\nContent-Type: application/soap+xml;charset=UTF-8\r\n` +
    (authorization ? `Authorization: ${authorization}\r\n` : '') +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

function authorize(challenge: string, password: string, override: Partial<Record<'response', string>> = {}): string {
  const realm = /realm="([^"]+)"/.exec(challenge)![1]!;
  const nonce = /nonce="([^"]+)"/.exec(challenge)![1]!;
  const ha1 = md5(`admin:${realm}:${password}`);
  const response = override.response ?? md5(`${ha1}:${nonce}:00000001:abcd:auth:${md5('POST:/wsman')}`);
  return `Digest username="admin", realm="${realm}", nonce="${nonce}", uri="/wsman", qop=auth, nc=00000001, cnonce="abcd", response="${response}"`;
}

describe('simulated device on the wire', () => {
  it('answers GET / with 303 to /logon.htm and the AMT Server header', async () => {
    const device = fleet.devices[0]!;
    const text = await raw(device.address, `GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 303 See Other\r\n/);
    assert.match(text, /\r\nLocation: \/logon\.htm\r\n/i);
    assert.match(text, new RegExp(`\\r\\nServer: Intel\\(R\\) Active Management Technology ${device.config.firmwareVersion.replace(/\./g, '\\.')}\\r\\n`, 'i'));
  });

  it('challenges like AMT: realm Digest:+32 hex, base64 nonce, uneven separators, Connection: close, HTML body', async () => {
    const device = fleet.devices[0]!;
    const text = await raw(device.address, post(device.address, SOAP('http://intel.com/wbem/wscim/1/amt-schema/1/AMT_GeneralSettings')));
    assert.match(text, /^HTTP\/1\.1 401 /);
    assert.match(text, /\r\nWWW-Authenticate: Digest realm="Digest:[0-9A-F]{32}", nonce="[A-Za-z0-9+/]+={0,2}",stale="false",qop="auth"\r\n/);
    assert.match(text, /\r\nConnection: close\r\n/i);
    assert.match(text, /\r\nContent-Type: text\/html\r\n/i);
    assert.match(text, /<html>/);
  });

  it('refuses an empty digest response, and accepts the right one with a chunked answer split mid-element', async () => {
    const device = fleet.devices[0]!;
    const uri = 'http://intel.com/wbem/wscim/1/amt-schema/1/AMT_GeneralSettings';
    const first = await raw(device.address, post(device.address, SOAP(uri)));
    const challenge = /WWW-Authenticate: (.*)\r\n/.exec(first)![1]!;
    const empty = await raw(device.address, post(device.address, SOAP(uri), authorize(challenge, DEFAULT_PASSWORD, { response: '' })));
    assert.match(empty, /^HTTP\/1\.1 401 /);

    const second = await raw(device.address, post(device.address, SOAP(uri)));
    const ok = await raw(device.address, post(device.address, SOAP(uri), authorize(/WWW-Authenticate: (.*)\r\n/.exec(second)![1]!, DEFAULT_PASSWORD)));
    assert.match(ok, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(ok, /\r\nTransfer-Encoding: chunked\r\n/i);
    assert.match(ok, /\r\nContent-Type: application\/soap\+xml; charset=UTF-8\r\n/i);
    // Decode the chunked body strictly: every chunk within the simulator's chunk size, the whole
    // envelope before the last chunk (0), nothing after it (Node 22+ once put chunks after it).
    let rest = ok.slice(ok.indexOf('\r\n\r\n') + 4);
    const pieces: string[] = [];
    for (;;) {
      const nl = rest.indexOf('\r\n');
      assert.ok(nl > 0, 'a chunk size line');
      const size = parseInt(rest.slice(0, nl), 16);
      assert.ok(Number.isInteger(size) && size <= 64, `chunk of ${size} bytes`);
      if (size === 0) {
        assert.equal(rest.slice(nl), '\r\n\r\n', 'nothing after the last chunk');
        break;
      }
      pieces.push(rest.slice(nl + 2, nl + 2 + size));
      assert.equal(rest.slice(nl + 2 + size, nl + 4 + size), '\r\n');
      rest = rest.slice(nl + 2 + size + 2);
    }
    assert.ok(pieces.length > 5, `only ${pieces.length} chunks`);
    assert.ok(pieces.some((p) => /<[^>]*$/.test(p) || /^[^<]*>/.test(p)), 'no chunk boundary inside a tag');
    const xml = pieces.join('');
    assert.match(xml, /<\/a:Envelope>$/);
    assert.match(xml, /<b:RelatesTo>42<\/b:RelatesTo>/);
    assert.match(xml, new RegExp(`<g:HostName>${device.config.hostname}</g:HostName>`));
  });

  it('uses the alternative password on the devices chosen for it', async () => {
    const alt = fleet.devices[1]!;
    assert.equal(alt.config.passwordId, 'alt');
    const first = await raw(alt.address, post(alt.address, SOAP('http://intel.com/wbem/wscim/1/amt-schema/1/AMT_GeneralSettings')));
    const refused = await raw(alt.address, post(alt.address, SOAP('x'), authorize(/WWW-Authenticate: (.*)\r\n/.exec(first)![1]!, DEFAULT_PASSWORD)));
    assert.match(refused, /^HTTP\/1\.1 401 /);
    assert.equal(alt.counters().authFailures, 1);
  });

  it('prints a manifest of what it runs, without passwords', () => {
    const manifest = fleet.manifest();
    assert.equal(manifest.count, 4);
    assert.equal(manifest.firstAddress, '127.20.8.1');
    assert.deepEqual(manifest.provisioning, { pre: 0, in: 2, post: 2 });
    assert.equal(manifest.tlsDevices, 1);
    assert.equal(manifest.devices[3]!.ports.https, 16993);
    assert.equal(manifest.devices[3]!.ports.http, null);
    assert.ok(manifest.devices[3]!.certificateFingerprint);
    assert.doesNotMatch(JSON.stringify(manifest), /P@ss/);
  });

  it('gives every device its own consecutive address, skipping .0 and .255', () => {
    assert.deepEqual(fleetAddresses('127.20.9.253', 4), ['127.20.9.253', '127.20.9.254', '127.20.10.1', '127.20.10.2']);
    assert.throws(() => fleetAddresses('127.255.255.254', 3));
  });
});

describe('simulator CLI', () => {
  it('prints the manifest, serves the devices and stops cleanly on SIGTERM', async () => {
    const cli = fileURLToPath(new URL('../sim/cli.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--count', '3', '--base', '127.20.9.1', '--rmcp-port', '0', '--tls-every', '3', '--provisioning', 'post,in', '--seed', 'cli'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      });
      const manifest = JSON.parse(line) as { count: number; devices: Array<{ address: string; tls: boolean; provisioningState: number }> };
      assert.equal(manifest.count, 3);
      assert.deepEqual(
        manifest.devices.map((d) => [d.address, d.tls, d.provisioningState]),
        [
          ['127.20.9.1', false, 2],
          ['127.20.9.2', false, 1],
          ['127.20.9.3', true, 2],
        ],
      );
      assert.match(await raw('127.20.9.1', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), /^HTTP\/1\.1 303 /);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });
});
