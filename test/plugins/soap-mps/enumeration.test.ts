import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { testMachine } from './fixtures/presence-fixture-plugin.js';
import { startReceiver } from './notification-receiver.js';
import { basicHeader, envelope, faultOf, startSoapGateway, type SoapResponse, type SoapTestGateway } from './soap-test-gateway.js';

const FLEET = Array.from({ length: 1050 }, (_, i) => testMachine(i));

function contextOf(res: SoapResponse): string {
  assert.equal(res.status, 200, res.text);
  return String(res.xml!.Envelope.Body.EnumerateConnectedMachinesResponse.EnumerationContext);
}

function pageOf(res: SoapResponse): { names: string[]; end: boolean } {
  assert.equal(res.status, 200, res.text);
  const body = res.xml!.Envelope.Body.PullResponse;
  return { names: (body?.Items ?? []).map((i: { SystemName: string }) => i.SystemName), end: body !== '' && body?.EndOfSequence !== undefined };
}

const pull = (context: string, max?: string) =>
  envelope(`<m:Pull><m:EnumerationContext>${context}</m:EnumerationContext>${max === undefined ? '' : `<m:MaxElements>${max}</m:MaxElements>`}</m:Pull>`);
const release = (context: string) => envelope(`<m:Release><m:EnumerationContext>${context}</m:EnumerationContext></m:Release>`);
const ENUMERATE = envelope('<m:EnumerateConnectedMachines/>');

function assertUnknownContext(res: SoapResponse): void {
  assert.equal(res.status, 500);
  assert.deepEqual(faultOf(res), { code: 'soap:Client', message: 'the enumeration context is unknown, released or expired', detail: 'GW_ERR_SOAP_UNKNOWN_CONTEXT' });
}

describe('enumeration of 1,050 connected machines', () => {
  let gw: SoapTestGateway;
  before(async () => {
    gw = await startSoapGateway({ machines: FLEET, soap: { enumeration: { maxContexts: 5, maxContextsPerCaller: 3, maxPageSize: 500 } } });
  });
  after(() => gw?.cleanup());

  test('pages with MaxElements 100 in 11 pages, EndOfSequence on the last, no duplicate and none missing', async () => {
    const context = contextOf(await gw.post(ENUMERATE));
    const pages: string[][] = [];
    for (let i = 0; i < 20; i++) {
      const page = pageOf(await gw.post(pull(context, '100')));
      pages.push(page.names);
      if (page.end) break;
    }
    assert.equal(pages.length, 11);
    assert.deepEqual(pages.map((p) => p.length), [...Array(10).fill(100), 50]);
    const all = pages.flat();
    assert.equal(new Set(all).size, 1050, 'no duplicate');
    assert.deepEqual([...all].sort(), FLEET.map((m) => m.fqdn!).sort(), 'none missing');
    // Past the end: still valid, empty, EndOfSequence again.
    assert.deepEqual(pageOf(await gw.post(pull(context, '100'))), { names: [], end: true });
    assert.equal((await gw.post(release(context))).status, 200);
  });

  test('a context is a snapshot: machines connecting later are not in it', async () => {
    const context = contextOf(await gw.post(ENUMERATE));
    gw.fixture.setMachines([...FLEET, testMachine(5000)]);
    try {
      const page = pageOf(await gw.post(pull(context, '2000')));
      assert.equal(page.names.length, 500, 'MaxElements above maxPageSize is capped');
      let total = page.names.length;
      for (let end = page.end; !end; ) {
        const next = pageOf(await gw.post(pull(context, '500')));
        total += next.names.length;
        end = next.end;
      }
      assert.equal(total, 1050);
    } finally {
      gw.fixture.setMachines(FLEET);
      await gw.post(release(context));
    }
  });

  test('without MaxElements a page holds the default page size (100)', async () => {
    const context = contextOf(await gw.post(ENUMERATE));
    assert.equal(pageOf(await gw.post(pull(context))).names.length, 100);
    await gw.post(release(context));
  });

  test('MaxElements below 1 or not an integer is a SOAP Fault', async () => {
    const context = contextOf(await gw.post(ENUMERATE));
    for (const bad of ['0', '-1', '1.5', 'ten', '']) {
      const res = await gw.post(pull(context, bad));
      assert.equal(res.status, 500, bad);
      const fault = faultOf(res)!;
      assert.equal(fault.code, 'soap:Client');
      assert.match(fault.message, /MaxElements must be a positive integer/);
    }
    // The faults did not consume the context.
    assert.equal(pageOf(await gw.post(pull(context, '1'))).names.length, 1);
    await gw.post(release(context));
  });

  test('unknown, released and foreign contexts are SOAP Faults', async () => {
    assertUnknownContext(await gw.post(pull('no-such-context')));
    assertUnknownContext(await gw.post(release('no-such-context')));
    const context = contextOf(await gw.post(ENUMERATE));
    const released = await gw.post(release(context));
    assert.equal(released.status, 200);
    assert.equal(released.xml!.Envelope.Body, '', 'Release answers with an empty Body');
    assertUnknownContext(await gw.post(pull(context)));
    assertUnknownContext(await gw.post(release(context)));

    // A context answers only the caller that opened it.
    const mine = contextOf(await gw.post(ENUMERATE));
    await gw.harness.userWith(['mps:read'], 'other-reader');
    const other = basicHeader('other-reader', 'user-password-1');
    assertUnknownContext(await gw.post(pull(mine), { authorization: other }));
    assert.equal(pageOf(await gw.post(pull(mine, '1'))).names.length, 1);
    await gw.post(release(mine));
  });

  test('contexts are bounded per caller, so one caller cannot starve the others, and in all; releasing one frees a place', async () => {
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(contextOf(await gw.post(ENUMERATE)));
    const hog = await gw.post(ENUMERATE);
    assert.equal(hog.status, 500);
    assert.deepEqual(faultOf(hog), {
      code: 'soap:Client',
      message: 'this caller has too many open enumeration contexts (at most 3); release contexts or retry later',
      detail: 'GW_ERR_SOAP_TOO_MANY_CALLER_CONTEXTS',
    });

    // Another user still gets contexts, up to the global bound of 5.
    await gw.harness.userWith(['mps:read'], 'second-reader');
    const second = basicHeader('second-reader', 'user-password-1');
    const theirs = [];
    for (let i = 0; i < 2; i++) theirs.push(contextOf(await gw.post(ENUMERATE, { authorization: second })));
    const full = await gw.post(ENUMERATE, { authorization: second });
    assert.equal(full.status, 500);
    assert.equal(faultOf(full)!.detail, 'GW_ERR_SOAP_TOO_MANY_CONTEXTS');
    assert.match(faultOf(full)!.message, /too many open enumeration contexts \(at most 5\)/);

    await gw.post(release(mine.pop()!));
    theirs.push(contextOf(await gw.post(ENUMERATE, { authorization: second })));
    assert.equal(faultOf(await gw.post(ENUMERATE))!.detail, 'GW_ERR_SOAP_TOO_MANY_CONTEXTS');
    await gw.post(release(theirs.pop()!), { authorization: second });
    mine.push(contextOf(await gw.post(ENUMERATE)));
    for (const context of mine) assert.equal((await gw.post(release(context))).status, 200);
    for (const context of theirs) assert.equal((await gw.post(release(context), { authorization: second })).status, 200);
  });
});

/** Waits until the absolute time `at` (ms) has passed, with a margin. */
const pastDeadline = (at: number) => sleep(Math.max(0, at - Date.now()) + 150);

describe('expiry of enumeration contexts and subscriptions (lifetimes of 1 s)', () => {
  let gw: SoapTestGateway;
  before(async () => {
    gw = await startSoapGateway({
      machines: Array.from({ length: 10 }, (_, i) => testMachine(i)),
      soap: { enumeration: { ttlSeconds: 1 }, subscriptions: { ttlSeconds: 1 }, delivery: { backoffMs: 50, timeoutMs: 2000 } },
    });
  });
  after(() => gw?.cleanup());

  test('an enumeration context reports its lifetime in Expires and is a SOAP Fault once it has passed', async () => {
    const started = Date.now();
    const res = await gw.post(envelope('<m:EnumerateConnectedMachines/>'));
    assert.equal(res.status, 200, res.text);
    const body = res.xml!.Envelope.Body.EnumerateConnectedMachinesResponse;
    const expires = Date.parse(String(body.Expires));
    assert.ok(expires >= started + 1000 - 50 && expires <= Date.now() + 1000 + 50, 'Expires is about 1 s ahead');
    const pull = envelope(`<m:Pull><m:EnumerationContext>${body.EnumerationContext}</m:EnumerationContext><m:MaxElements>3</m:MaxElements></m:Pull>`);
    assert.equal((await gw.post(pull)).xml!.Envelope.Body.PullResponse.Items.length, 3);
    await pastDeadline(expires);
    const expired = await gw.post(pull);
    assert.equal(expired.status, 500);
    assert.equal(faultOf(expired)!.message, 'the enumeration context is unknown, released or expired');
  });

  test('an expired subscription is not notified and is gone', async () => {
    const r = await startReceiver();
    try {
      const res = await gw.post(envelope(`<m:SubscribeForNotifications><m:Delivery>${r.url}</m:Delivery></m:SubscribeForNotifications>`));
      const expires = Date.parse(String(res.xml!.Envelope.Body.SubscribeForNotificationsResponse.Expires));
      await pastDeadline(expires);
      gw.fixture.disconnect('dev-000001');
      await sleep(300);
      assert.equal(r.attempts, 0);
      const unsub = await gw.post(envelope(`<m:Unsubscribe><m:Delivery>${r.url}</m:Delivery></m:Unsubscribe>`));
      assert.equal(faultOf(unsub)!.detail, 'GW_ERR_SOAP_UNKNOWN_SUBSCRIPTION');
    } finally {
      await r.close();
    }
  });
});
