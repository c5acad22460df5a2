/** The pieces of the protocol with no peer: rpc-go's command lines and payloads, versions, relayed request framing, generated secrets. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentRequest } from '../../../plugins/activation/wire/agent-request.js';
import { PROTOCOL_VERSION, protocolCompatible, serverMessage } from '../../../plugins/activation/wire/rps-message.js';
import { completeRequestLength } from '../../../plugins/activation/session/agent-channel.js';
import { periodicData } from '../../../plugins/activation/device/steps/cira-steps.js';
import { suffixMatches } from '../../../plugins/activation/domains/provisioning-certificate.js';
import { randomPassword } from '../../../core/util/random-password.js';

const UUID = '4c4c4544-0042-3610-8048-b4c04f4e4b33';
const envelope = (method: string, payload: Record<string, unknown> = {}) => ({
  method,
  apiKey: 'key',
  appVersion: 'v2.52.4',
  protocolVersion: '4.0.0',
  status: 'ok',
  message: 'ok',
  tenantId: '',
  payload: Buffer.from(JSON.stringify({ ver: '16.1.27', build: '2225', sku: '16392', uuid: UUID, currentMode: 1, username: '$$OsAdmin', password: 'P@ss-typed1', client: 'RPC', hostname: 'pc-1', fqdn: 'Corp.Example.', certHashes: ['AB'.repeat(32)], ...payload })).toString('base64'),
});

test('reads rpc-go\'s command lines as setCommandMethod writes them', () => {
  const activate = agentRequest(envelope('activate --profile ccm-cira', { currentMode: 0 }));
  assert.deepEqual([activate.action, activate.action === 'activate' && activate.profile], ['activate', 'ccm-cira']);
  const deactivate = agentRequest(envelope('deactivate --password P@ss-typed1 -f'));
  assert.ok(deactivate.action === 'deactivate' && deactivate.force && deactivate.password === 'P@ss-typed1');
  const time = agentRequest(envelope('maintenance -password P@ss-typed1 --synctime'));
  assert.ok(time.action === 'maintenance' && time.task === 'synctime' && time.newPassword === null);
  const rotate = agentRequest(envelope('maintenance -password P@ss-typed1 --changepassword New-P@ss2 -f'));
  assert.ok(rotate.action === 'maintenance' && rotate.task === 'changepassword' && rotate.newPassword === 'New-P@ss2' && rotate.force);
  const generated = agentRequest(envelope('maintenance -password P@ss-typed1 --changepassword -f'));
  assert.ok(generated.action === 'maintenance' && generated.newPassword === null);
});

test('reads the firmware\'s facts: UUID and hashes lower case, the DNS suffix without its trailing dot', () => {
  const { facts } = agentRequest(envelope('activate --profile p', { uuid: UUID.toUpperCase() }));
  assert.equal(facts.uuid, UUID);
  assert.equal(facts.dnsSuffix, 'corp.example');
  assert.deepEqual(facts.certHashes, ['ab'.repeat(32)]);
  assert.deepEqual(facts.account, { username: '$$OsAdmin', password: 'P@ss-typed1' });
});

test('refuses payloads rpc-go never sends', () => {
  for (const [payload, why] of [
    [{ uuid: '00000000-0000-0000-0000-000000000000' }, /invalid/],
    [{ currentMode: 3 }, /currentMode/],
    [{ certHashes: ['xyz'] }, /certHashes/],
    [{ ver: 'sixteen' }, /ver/],
    [{ hostname: 'h'.repeat(300) }, /hostname is longer/],
  ] as const) {
    assert.throws(() => agentRequest(envelope('activate --profile p', payload)), (e: Error) => why.test(e.message));
  }
});

test('speaks protocol 4.0.0 and what RPS accepts with it', () => {
  assert.equal(PROTOCOL_VERSION, '4.0.0');
  assert.ok(protocolCompatible('4.0.0') && protocolCompatible('4') && protocolCompatible('4.0'));
  assert.ok(!protocolCompatible('4.0.1') && !protocolCompatible('4.1.0') && !protocolCompatible('3.9.9') && !protocolCompatible('') && !protocolCompatible('4.x'));
});

test('server messages have RPS\'s envelope; a relayed request travels base64, a heartbeat with an empty payload', () => {
  const wsman = JSON.parse(serverMessage('wsman', 'ok', { payload: Buffer.from('POST /wsman') })) as Record<string, unknown>;
  assert.deepEqual(Object.keys(wsman).sort(), ['apiKey', 'appVersion', 'message', 'method', 'payload', 'protocolVersion', 'status', 'tenantId']);
  assert.equal(Buffer.from(String(wsman['payload']), 'base64').toString(), 'POST /wsman');
  assert.equal((JSON.parse(serverMessage('heartbeat_request', 'heartbeat')) as { payload: string }).payload, '');
  assert.equal((JSON.parse(serverMessage('success', 'success', { message: '{}' })) as { payload: null }).payload, null);
});

test('knows when a relayed HTTP request is complete (length, or chunked to its last chunk)', () => {
  const head = 'POST /wsman HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\n';
  assert.equal(completeRequestLength(Buffer.from(head + 'abc')), 0);
  assert.equal(completeRequestLength(Buffer.from(head + 'abcde')), head.length + 5);
  const chunked = 'POST /wsman HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n';
  assert.equal(completeRequestLength(Buffer.from(chunked)), 0);
  assert.equal(completeRequestLength(Buffer.from(chunked + '0\r\n\r\n')), chunked.length + 5);
});

test('writes the periodic interval as AMT reads it (RPS\'s 25 s is AAAAAAAAABk=)', () => {
  assert.equal(periodicData(25), 'AAAAAAAAABk=');
});

test('matches DNS suffixes as firmware does: the certificate\'s domain, or under it', () => {
  assert.ok(suffixMatches('provision.corp.example', 'corp.example'));
  assert.ok(suffixMatches('corp.example', 'eu.corp.example'));
  assert.ok(!suffixMatches('provision.corp.example', 'example.org'));
  assert.ok(!suffixMatches('badcorp.example', 'corp.example'));
});

test('generated passwords meet AMT\'s rule and hold nothing XML needs escaped', () => {
  for (let i = 0; i < 200; i++) {
    const password = randomPassword(16);
    assert.match(password, /^(?=.*[a-z])(?=.*[A-Z])(?=.*[0-9])(?=.*[^A-Za-z0-9])[^<>&"'\s\\]{16}$/);
  }
});
