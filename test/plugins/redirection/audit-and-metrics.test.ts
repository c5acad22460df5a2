/**
 * The remote console in the audit trail and the metrics: features, consent (never the code), a
 * refused and an opened session, its end by the viewer and by an operator, each recorded with who
 * and from where; the sessions and the bytes relayed counted in `/metrics`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { allRecords, type AuditRecord } from '../audit/audit-kit.js';
import { redirectionKit } from './redirection-kit.js';
import { until } from '../../helpers/poll.js';

let kit: FleetGateway;
const k = redirectionKit(() => kit);

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 2, base: '127.63.7.1', provisioningModes: [1], seed: 'redirection-audit' },
    range: '127.63.7.1-2',
    plugins: ['rest-api', 'redirection', 'audit', 'metrics'],
    pluginConfig: { audit: { enable: true }, metrics: { enable: true } },
  });
});

after(async () => {
  await kit?.cleanup();
});

const metric = async (line: string): Promise<number> => {
  const text = await (await kit.gw.request('GET', '/metrics', { token: kit.token })).text();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
};

test('features, consent and sessions are recorded (the code never), and sessions and their bytes are counted', async () => {
  const [kvmSim, solSim] = kit.fleet.devices;
  const kvmId = k.idOf(kvmSim!);
  const solId = k.idOf(solSim!);

  assert.equal((await k.api('PUT', `/api/redirection/${kvmId}/features`, { userConsent: 'kvm' })).status, 200);
  assert.equal((await k.api('POST', `/api/redirection/${kvmId}/sessions`, { mode: 'kvm' })).status, 409, 'consent required');
  assert.equal((await k.api('POST', `/api/redirection/${kvmId}/consent`)).status, 202);
  const code = kvmSim!.redirection.consentCode!;
  const wrongCode = code === '000000' ? '000001' : '000000';
  assert.equal((await k.api('POST', `/api/redirection/${kvmId}/consent/code`, { code: wrongCode })).status, 422);
  assert.equal((await k.api('POST', `/api/redirection/${kvmId}/consent/code`, { code })).status, 200);

  const { ws: kvm, rfb } = await k.kvm(kvmSim!);
  rfb.requestUpdate(false);
  await rfb.readUpdate();
  assert.equal(await metric('amtgw_remote_console_sessions{mode="kvm"}'), 1, 'one KVM session open');
  kvm.close();
  await until('KVM session over', () => kvmSim!.redirection.open.size === 0, 5_000);

  const solTicket = await k.ticket(solSim!, 'sol');
  const sol = await k.relay(solTicket.url);
  await until('SOL session listed', async () => ((await (await k.api('GET', '/api/redirection/sessions')).json()) as unknown[]).length === 1, 5_000);
  const ended = k.closed(sol);
  assert.equal((await k.api('DELETE', `/api/redirection/sessions/${solTicket.id}`)).status, 204);
  await ended;
  assert.equal((await k.api('DELETE', `/api/redirection/${kvmId}/consent`)).status, 204);

  await until('both ends counted', async () => (await metric('amtgw_remote_console_sessions_total{mode="sol"}')) === 1, 5_000);
  assert.equal(await metric('amtgw_remote_console_sessions_total{mode="kvm"}'), 1);
  assert.equal(await metric('amtgw_remote_console_sessions{mode="kvm"}'), 0, 'no session open');
  assert.ok((await metric('amtgw_remote_console_bytes_total{mode="kvm",direction="from_device"}')) > 0, 'the framebuffer bytes counted');

  let records: AuditRecord[] = [];
  await until('both session ends recorded', async () => {
    records = (await allRecords(kit.gw, kit.token)).filter((r) => r.action.startsWith('remote.'));
    return records.filter((r) => r.action === 'remote.session.end').length === 2;
  }, 5_000);
  const one = (action: string, target: string, outcome = 'success') => {
    const hits = records.filter((r) => r.action === action && r.target === target && r.outcome === outcome);
    assert.equal(hits.length, 1, `one ${outcome} ${action} on ${target}: ${JSON.stringify(records.map((r) => [r.action, r.target, r.outcome]))}`);
    assert.equal(hits[0]!.user, 'admin');
    assert.equal(hits[0]!.address, '127.0.0.1');
    return hits[0]!;
  };
  assert.equal(one('remote.features', kvmId).detail['userConsent'], 'kvm');
  assert.equal(one('remote.session.start', kvmId, 'failure').detail['error'], 'GW_ERR_CONSENT_REQUIRED');
  assert.equal(one('remote.consent.start', kvmId).detail['optInState'], 'displayed');
  one('remote.consent.code', kvmId, 'failure');
  assert.equal(one('remote.consent.code', kvmId).detail['optInState'], 'received');
  one('remote.consent.cancel', kvmId);
  one('remote.session.start', kvmId);
  const kvmEnd = one('remote.session.end', kvmId);
  assert.equal(kvmEnd.detail['mode'], 'kvm');
  assert.ok((kvmEnd.detail['bytesFromDevice'] as number) > 0);
  assert.equal(typeof kvmEnd.detail['durationSeconds'], 'number');
  assert.equal(one('remote.session.start', solId).detail['sessionId'], solTicket.id);
  assert.equal(one('remote.session.end', solId).detail['reason'], 'deleted');
  assert.ok(!JSON.stringify(records).includes(code), 'no record holds the consent code');
});
