import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { testMachine } from './fixtures/presence-fixture-plugin.js';
import { DEFAULT_NS, envelope, faultOf, SOAP11, startSoapGateway, type SoapResponse, type SoapTestGateway } from './soap-test-gateway.js';

const IS_CONNECTED = (name: string, extra = '') => envelope(`<m:IsMachineConnected><m:Machine><m:SystemName>${name}</m:SystemName></m:Machine>${extra}</m:IsMachineConnected>`);

function assertFault(res: SoapResponse, code: string, message: RegExp, errorCode?: string): void {
  assert.equal(res.status, 500, res.text);
  assert.match(String(res.headers['content-type']), /^text\/xml/);
  const fault = faultOf(res);
  assert.ok(fault, `a soap:Fault in ${res.text}`);
  assert.equal(fault.code, code);
  assert.match(fault.message, message);
  if (errorCode) assert.equal(fault.detail, errorCode);
}

function isConnected(res: SoapResponse): boolean {
  assert.equal(res.status, 200, res.text);
  return res.xml!.Envelope.Body.IsMachineConnectedResponse.IsConnected === 'true';
}

// One gateway for the file: the guard tests first, then authentication, whose last test leaves
// 127.0.0.1 refused (429) on it.
let gw: SoapTestGateway;
before(async () => {
  gw = await startSoapGateway({ machines: [testMachine(1)], soap: { maxBodyBytes: 4096 }, reader: true });
});
after(() => gw?.cleanup());

describe('request guard', () => {
  let bait: Server;
  let baitUrl: string;
  let baitHits = 0;

  before(async () => {
    // A server the hostile payloads point at: any request reaching it is an external entity resolved.
    bait = createServer((req, res) => {
      baitHits++;
      res.end('<!ENTITY leak "leaked">');
    });
    await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
    baitUrl = `http://127.0.0.1:${(bait.address() as AddressInfo).port}/xxe`;
  });
  after(async () => {
    await new Promise((resolve) => bait?.close(resolve));
  });

  test('malformed XML is a SOAP Fault naming the problem', async () => {
    assertFault(await gw.post('<s:Envelope xmlns:s="' + SOAP11 + '"><s:Body>'), 'soap:Client', /^malformed XML: /, 'GW_ERR_SOAP_MALFORMED');
    assertFault(await gw.post('hello'), 'soap:Client', /^malformed XML: /);
    assertFault(await gw.post(''), 'soap:Client', /^malformed XML: /);
    assertFault(await gw.post(IS_CONNECTED('a') + '<second/>'), 'soap:Client', /malformed XML: .*only one root/);
    assertFault(await gw.post(IS_CONNECTED('&#0;')), 'soap:Client', /malformed XML: .*malformed character entity/);
    assertFault(await gw.post(envelope('<m:IsMachineConnected><m:Machine><q:SystemName>a</q:SystemName></m:Machine></m:IsMachineConnected>')), 'soap:Client', /malformed XML: .*unbound namespace prefix: "q"/);
  });

  test('DOCTYPE, entity declarations and external entities are refused and never resolved', async () => {
    const payloads = [
      `<?xml version="1.0"?><!DOCTYPE s:Envelope [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${IS_CONNECTED('&xxe;')}`,
      `<?xml version="1.0"?><!DOCTYPE s:Envelope [<!ENTITY xxe SYSTEM "${baitUrl}">]>${IS_CONNECTED('&xxe;')}`,
      `<?xml version="1.0"?><!DOCTYPE s:Envelope [<!ENTITY % remote SYSTEM "${baitUrl}"> %remote;]>${IS_CONNECTED('&leak;')}`,
      `<?xml version="1.0"?><!DOCTYPE s:Envelope SYSTEM "${baitUrl}">${IS_CONNECTED('a')}`,
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>${IS_CONNECTED('&lol2;')}`,
    ];
    for (const payload of payloads) {
      const res = await gw.post(payload);
      assertFault(res, 'soap:Client', /DOCTYPE and entity declarations are not allowed/, 'GW_ERR_SOAP_DOCTYPE');
      assert.doesNotMatch(res.text, /root:|leaked|lollol/);
    }
    // An entity reference without a declaration is refused too, not looked up.
    assertFault(await gw.post(IS_CONNECTED('&xxe;')), 'soap:Client', /entity reference &xxe; is not allowed/);
    // XInclude is just an extension element: accepted, ignored, never fetched.
    const xinclude = `<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${baitUrl}" parse="text"/>`;
    assert.equal(isConnected(await gw.post(IS_CONNECTED('amt-1', xinclude))), true);
    await sleep(200);
    assert.equal(baitHits, 0, 'no request reached the bait server');
  });

  test('a body over maxBodyBytes is a SOAP Fault, declared or streamed', async () => {
    const padding = `<x:pad xmlns:x="urn:pad">${'a'.repeat(5000)}</x:pad>`;
    const declared = await gw.post(IS_CONNECTED('amt-1', padding));
    assertFault(declared, 'soap:Client', /request body exceeds 4096 bytes/, 'GW_ERR_SOAP_BODY_TOO_LARGE');
    // Chunked, no Content-Length: the limit applies while reading.
    const chunks = Readable.from((function* () {
      for (let i = 0; i < 100; i++) yield Buffer.from('a'.repeat(1000));
    })());
    const res = await request(gw.serviceUrl, { method: 'POST', headers: { authorization: gw.basic, 'content-type': 'text/xml' }, body: chunks }).catch((err: Error) => err);
    if (!(res instanceof Error)) {
      assert.equal(res.statusCode, 500);
      assert.match(await res.body.text(), /request body exceeds 4096 bytes/);
    }
    assert.equal(isConnected(await gw.post(IS_CONNECTED('amt-1'))), true, 'the service still answers');
  });

  test('envelope problems are SOAP Faults: SOAP 1.2, unknown operation, wrong SOAPAction, mustUnderstand, two body elements', async () => {
    const soap12 = `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><m:EnumerateConnectedMachines xmlns:m="${DEFAULT_NS}"/></e:Body></e:Envelope>`;
    assertFault(await gw.post(soap12), 'soap:VersionMismatch', /only SOAP 1.1/);
    assertFault(await gw.post('<a/>'), 'soap:Client', /root element must be a SOAP 1.1 Envelope/);
    assertFault(await gw.post(envelope('<m:Frobnicate/>')), 'soap:Client', /unknown operation \{.*\}Frobnicate/, 'GW_ERR_SOAP_UNKNOWN_OPERATION');
    assertFault(await gw.post(envelope('<m:EnumerateConnectedMachines/>', 'urn:wrong')), 'soap:Client', /unknown operation \{urn:wrong\}EnumerateConnectedMachines/);
    assertFault(await gw.post(envelope('<m:EnumerateConnectedMachines/>'), { action: `${DEFAULT_NS}/Pull` }), 'soap:Client', /SOAPAction .* does not match/);
    const must = `<s:Envelope xmlns:s="${SOAP11}" xmlns:m="${DEFAULT_NS}"><s:Header><h:Session xmlns:h="urn:h" s:mustUnderstand="1">x</h:Session></s:Header><s:Body><m:EnumerateConnectedMachines/></s:Body></s:Envelope>`;
    assertFault(await gw.post(must), 'soap:MustUnderstand', /\{urn:h\}Session is not understood/);
    assertFault(await gw.post(envelope('<m:EnumerateConnectedMachines/><m:EnumerateConnectedMachines/>')), 'soap:Client', /exactly one operation element/);
    assertFault(await gw.post(envelope('')), 'soap:Client', /exactly one operation element, not 0/);
  });

  test('wrong element shapes and types are SOAP Faults', async () => {
    const cases: Array<[string, RegExp]> = [
      ['<m:IsMachineConnected><Machine><SystemName>a</SystemName></Machine></m:IsMachineConnected>', /element Machine in IsMachineConnected must be in namespace/],
      ['<m:IsMachineConnected/>', /IsMachineConnected needs a Machine element/],
      ['<m:IsMachineConnected><m:Machine><m:SystemName><m:x/></m:SystemName></m:Machine></m:IsMachineConnected>', /SystemName must contain text only/],
      ['<m:IsMachineConnected><m:Machine><m:SystemName>a</m:SystemName><m:SystemName>b</m:SystemName></m:Machine></m:IsMachineConnected>', /at most 1 SystemName/],
      ['<m:Pull><m:MaxElements>5</m:MaxElements></m:Pull>', /Pull needs a EnumerationContext element before MaxElements/],
      ['<m:Pull><m:MaxElements>5</m:MaxElements><m:EnumerationContext>x</m:EnumerationContext></m:Pull>', /Pull needs a EnumerationContext/],
      ['<m:Release><m:EnumerationContext>x</m:EnumerationContext><x:e xmlns:x="urn:x"/></m:Release>', /Release does not accept extension elements/],
      ['<m:EnumerateConnectedMachines>text</m:EnumerateConnectedMachines>', /must not contain text/],
      ['<m:SubscribeForNotifications><m:Delivery>ftp://127.0.0.1/x</m:Delivery></m:SubscribeForNotifications>', /Delivery must be an absolute http or https URI/],
      ['<m:SubscribeForNotifications><m:Delivery>/relative/path</m:Delivery></m:SubscribeForNotifications>', /Delivery must be an absolute http or https URI/],
      ['<m:SubscribeForNotifications><m:Delivery>http://user:secret@127.0.0.1/x</m:Delivery></m:SubscribeForNotifications>', /Delivery must not carry user credentials/],
      ['<m:Unsubscribe><m:Delivery>http://127.0.0.1:9/never</m:Delivery></m:Unsubscribe>', /no subscription exists for this Delivery URI/],
    ];
    for (const [body, message] of cases) {
      const res = await gw.post(envelope(body));
      assertFault(res, 'soap:Client', message);
      assert.doesNotMatch(res.text, /secret/, 'no secret echoed in a fault');
    }
  });

  test('extension elements and foreign attributes are accepted and ignored where the specification allows them', async () => {
    const ext = '<x:Hint xmlns:x="urn:ext" x:level="2"><x:Nested>1</x:Nested></x:Hint>';
    const inMachine = envelope(`<m:IsMachineConnected><m:Machine><m:SystemName> AMT-1 </m:SystemName>${ext}</m:Machine>${ext}</m:IsMachineConnected>`);
    assert.equal(isConnected(await gw.post(inMachine)), true);
    const start = await gw.post(envelope('<m:EnumerateConnectedMachines/>'));
    const context = String(start.xml!.Envelope.Body.EnumerateConnectedMachinesResponse.EnumerationContext);
    const res = await gw.post(envelope(`<m:Pull xmlns:x="urn:ext" x:flag="on"><m:EnumerationContext>${context}</m:EnumerationContext><m:MaxElements>10</m:MaxElements>${ext}</m:Pull>`));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.xml!.Envelope.Body.PullResponse.Items[0].SystemName, 'amt-1.example.test');
  });

  test('bad transport framing is a SOAP Fault: non-XML content type, content encoding, invalid UTF-8', async () => {
    assertFault(await gw.post(IS_CONNECTED('amt-1'), { headers: { 'content-type': 'application/json' } }), 'soap:Client', /Content-Type must be text\/xml/);
    assertFault(await gw.post(IS_CONNECTED('amt-1'), { headers: { 'content-encoding': 'gzip' } }), 'soap:Client', /Content-Encoding gzip is not supported/);
    const bytes = Buffer.concat([Buffer.from(IS_CONNECTED('amt-').slice(0, 150)), Buffer.from([0xff, 0xfe, 0xc3])]);
    assertFault(await gw.post(bytes), 'soap:Client', /not valid UTF-8/);
  });

  test('other paths and methods get plain HTTP answers', async () => {
    const notFound = await request(`${gw.soapUrl}/other`, { headers: { authorization: gw.basic } });
    assert.equal(notFound.statusCode, 404);
    await notFound.body.dump();
    const put = await request(gw.serviceUrl, { method: 'PUT', headers: { authorization: gw.basic }, body: 'x' });
    assert.equal(put.statusCode, 405);
    await put.body.dump();
  });
});

describe('caller authentication', () => {
  const assertRefused = (res: SoapResponse) => {
    assert.equal(res.status, 401);
    assert.match(String(res.headers['www-authenticate']), /^Basic realm="MPSInterfaceService"/);
    assert.equal(faultOf(res), undefined, 'no SOAP processing');
  };

  test('HTTP Basic with a user holding mps:read is served; anyone else gets 401 before any SOAP processing', async () => {
    assert.equal(isConnected(await gw.post(IS_CONNECTED('amt-1'))), true);
    assertRefused(await gw.post(IS_CONNECTED('amt-1'), { authorization: null }));
    assertRefused(await gw.post('<not-even-xml', { authorization: null }));
    assertRefused(await gw.post(IS_CONNECTED('amt-1'), { authorization: 'Basic ' + Buffer.from('soap-reader:wrong-password').toString('base64') }));
    assertRefused(await gw.post(IS_CONNECTED('amt-1'), { authorization: 'Basic !!!' }));
    assertRefused(await gw.post(IS_CONNECTED('amt-1'), { authorization: `Bearer ${await gw.harness.login()}` }));
    await gw.harness.userWith(['users:manage'], 'no-mps');
    assertRefused(await gw.post(IS_CONNECTED('amt-1'), { authorization: 'Basic ' + Buffer.from('no-mps:user-password-1').toString('base64') }));
    const logs = gw.logs.join('\n');
    assert.doesNotMatch(logs, /wrong-password|user-password-1|Basic [A-Za-z0-9+/=]{8,}/, 'no password or Authorization header in the logs');
  });

  test('repeated failures from one address are refused with 429 for a while', async () => {
    const wrong = 'Basic ' + Buffer.from('soap-reader:guess').toString('base64');
    let res: SoapResponse | undefined;
    for (let i = 0; i < 11; i++) {
      res = await gw.post(IS_CONNECTED('amt-1'), { authorization: wrong });
      if (res.status === 429) break;
    }
    assert.equal(res!.status, 429);
    assert.ok(Number(res!.headers['retry-after']) > 0);
  });
});

describe('client-address mode (auth none)', () => {
  test('loopback callers are served without credentials by default', async () => {
    const open = await startSoapGateway({ machines: [testMachine(1)], soap: { auth: 'none' } });
    try {
      assert.equal(isConnected(await open.post(IS_CONNECTED('amt-1'), { authorization: null })), true);
    } finally {
      await open.cleanup();
    }
  });
});
