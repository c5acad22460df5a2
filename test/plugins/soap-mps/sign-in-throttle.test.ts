/**
 * SOAP's HTTP Basic is a sign-in like `POST /api/auth/login`, through the kernel's one throttle:
 * parallel guesses are counted from their start, the budget is shared with the REST login, and
 * every failed or refused attempt leaves an audit record and a log line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD } from '../../helpers/gateway-harness.js';
import { basicHeader, envelope, startSoapGateway, type SoapTestGateway } from './soap-test-gateway.js';

const IS_CONNECTED = envelope('<m:IsMachineConnected><m:Machine><m:SystemName>x</m:SystemName></m:Machine></m:IsMachineConnected>');
const MAX_FAILURES = 10;

describe('SOAP HTTP Basic sign-in', () => {
  let soap: SoapTestGateway;
  before(async () => {
    soap = await startSoapGateway({ plugins: ['audit'], site: { auth: { login: { freeFailures: 3, maxFailures: MAX_FAILURES, windowSeconds: 900, delayStepMs: 1 } } } });
  });
  after(() => soap.cleanup());

  const statuses = (list: Array<{ status: number }>) => list.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

  test('149 parallel wrong passwords for admin get no more checks than sequential ones; past the budget the right one is refused too', async () => {
    const guesses = await Promise.all(Array.from({ length: 149 }, (_, i) => soap.post(IS_CONNECTED, { authorization: basicHeader('admin', `guess-${i}`) })));
    const counts = statuses(guesses);
    assert.ok((counts[401] ?? 0) <= MAX_FAILURES, `passwords checked: ${counts[401]} (at most maxFailures)`);
    assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 149, JSON.stringify(counts));
    assert.ok(guesses.filter((g) => g.status === 429).every((g) => Number(g.headers['retry-after']) >= 1), 'refusals say when to retry');
    let checked = counts[401] ?? 0;
    for (let i = 0; i < 2 * MAX_FAILURES; i++) {
      const guess = await soap.post(IS_CONNECTED, { authorization: basicHeader('admin', `sequential-${i}`) });
      if (guess.status === 429) break;
      assert.equal(guess.status, 401);
      checked++;
    }
    assert.equal(checked, MAX_FAILURES, 'parallel and sequential guesses together: exactly maxFailures passwords checked');
    const right = await soap.post(IS_CONNECTED, { authorization: basicHeader('admin', ADMIN_PASSWORD) });
    assert.equal(right.status, 429, 'the right password is refused while the name is throttled');
  });

  test('failed SOAP sign-ins leave audit records (door soap) and aggregated log lines', async () => {
    const token = await soap.harness.login('admin', ADMIN_PASSWORD).catch(() => undefined);
    assert.equal(token, undefined, 'the REST login shares the budget SOAP spent: admin is throttled there too');
    const logged = soap.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const failed = logged.filter((l) => l.msg === 'sign-in failed: unknown user or wrong password' && l.door === 'soap');
    const refused = logged.filter((l) => l.msg === 'sign-in refused: too many failed attempts' && l.door === 'soap');
    assert.equal(failed.length, 1, 'one line for the address and door, the rest counted into its summary');
    assert.equal(refused.length, 1);
    assert.ok(!soap.logs.some((l) => l.includes('guess-')), 'no password in any log line');
  });
});

describe('SOAP and REST share one budget per address and name', () => {
  let soap: SoapTestGateway;
  let auditor: string;
  before(async () => {
    soap = await startSoapGateway({ plugins: ['audit'], site: { auth: { login: { freeFailures: 3, maxFailures: MAX_FAILURES, windowSeconds: 900, delayStepMs: 1 } } } });
    auditor = await soap.harness.userWith(['audit:read'], 'auditor');
  });
  after(() => soap.cleanup());

  test('failures at the REST login throttle SOAP Basic for the same name', async () => {
    for (let i = 0; i < MAX_FAILURES; i++) {
      assert.equal((await soap.harness.request('POST', '/api/auth/login', { body: { username: 'admin', password: `rest-guess-${i}` } })).status, 401);
    }
    assert.equal((await soap.post(IS_CONNECTED, { authorization: basicHeader('admin', ADMIN_PASSWORD) })).status, 429);
    const admin = await soap.harness.request('POST', '/api/auth/login', { body: { username: 'ADMIN', password: ADMIN_PASSWORD } });
    assert.equal(admin.status, 429);
  });

  test('the audit trail holds the SOAP attempts with their door', async () => {
    await soap.post(IS_CONNECTED, { authorization: basicHeader('nobody-here', 'wrong-password') });
    const res = await soap.harness.request('POST', '/api/auth/login', { body: { username: 'other-user', password: 'x' } });
    assert.equal(res.status, 401);
    const records = (await readAudit(soap, auditor)) as Array<{ action: string; class: string; outcome: string; detail: { door: string; names: string[] } }>;
    const soapRecord = records.find((r) => r.action === 'auth.sign-in' && r.detail.door === 'soap');
    assert.ok(soapRecord, JSON.stringify(records.slice(0, 5)));
    assert.equal(soapRecord.outcome, 'failure');
    assert.equal(soapRecord.class, 'sign-in-failures');
    assert.ok(soapRecord.detail.names.includes('nobody-here'), 'the names tried at the SOAP door');
    assert.ok(!records.some((r) => r.detail.door === 'rest' && r.detail.names?.includes('nobody-here')), 'kept apart from the REST door');
  });
});

async function readAudit(soap: SoapTestGateway, token: string): Promise<unknown[]> {
  const res = await soap.harness.request('GET', '/api/audit?action=auth.sign-in&limit=1000', { token });
  const body: unknown = await res.json();
  if (res.status !== 200) throw new Error(`audit: ${res.status} ${JSON.stringify(body)}`);
  return body as unknown[];
}
