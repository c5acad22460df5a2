import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { request } from 'undici';
import { validateXML } from 'xmllint-wasm';
import { XMLParser } from 'fast-xml-parser';
import * as soap from 'soap';
import { testMachine } from './fixtures/presence-fixture-plugin.js';
import { envelope, startSoapGateway, type SoapTestGateway } from './soap-test-gateway.js';
import { publishedBaseUrl } from '../../../plugins/soap-mps/wsdl.js';

const NS_BASE = 'http://example.test/wbem';
const NS = `${NS_BASE}/MPSInterface/2010/11`;
const OPERATIONS = ['IsMachineConnected', 'EnumerateConnectedMachines', 'Pull', 'Release', 'SubscribeForNotifications', 'Unsubscribe'];

type Callback = (err: Error | null, result?: any) => void;
interface StrongClient {
  setSecurity(security: unknown): void;
  [operation: string]: unknown;
}
interface StrongSoap {
  soap: {
    createClient(url: string, options: object, callback: (err: Error | null, client: StrongClient) => void): void;
    BasicAuthSecurity: new (username: string, password: string) => unknown;
  };
}
const strongSoap = createRequire(import.meta.url)('strong-soap') as StrongSoap;

const MACHINES = Array.from({ length: 7 }, (_, i) => testMachine(i + 1));
const NAMES = MACHINES.map((m) => m.fqdn!);

/** How a client reports an empty SOAP Body: null, or an object with nothing in it (soap: `{Body: null}`). */
function isEmptyBody(result: unknown): boolean {
  return result == null || (typeof result === 'object' && Object.values(result).every((v) => v == null));
}

/** Validates `xml` against the XML Schema `xsd` with libxml2 (compiled to WebAssembly, from npm). */
async function validate(xsd: string, xml: string): Promise<{ ok: boolean; output: string }> {
  const result = await validateXML({ xml: { fileName: 'instance.xml', contents: xml }, schema: { fileName: 'mps-interface.xsd', contents: xsd } });
  return { ok: result.valid, output: result.rawOutput };
}

/** The element the SOAP Body of a response envelope holds, as a standalone document. */
function bodyElement(text: string): string {
  const match = /<soap:Body>([\s\S]*)<\/soap:Body>/.exec(text);
  assert.ok(match, `no SOAP Body in ${text}`);
  return match[1]!.trim();
}

describe('the WSDL, and SOAP clients built from it', () => {
  let gw: SoapTestGateway;
  let wsdl: string;

  before(async () => {
    gw = await startSoapGateway({ soap: { nsBase: NS_BASE }, machines: MACHINES, reader: true });
    gw.fixture.setMachines(MACHINES, MACHINES.slice(0, 6).map((m) => m.deviceId));
    const res = await request(`${gw.serviceUrl}?wsdl`, { headers: { authorization: gw.basic } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /xml/);
    wsdl = await res.body.text();
  });
  after(async () => {
    await gw?.cleanup();
  });

  test('is served at ?wsdl with the configured namespace and the real listener address', () => {
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, isArray: (n: string, _path: unknown, _leaf: unknown, attribute: boolean) => !attribute && ['operation', 'message', 'element', 'part', 'port'].includes(n) }).parse(wsdl);
    const defs = doc.definitions;
    assert.equal(defs.targetNamespace, NS);
    assert.equal(defs.service.name, 'MPSInterfaceService');
    assert.equal(defs.service.port[0].name, 'MPSNInterfaceSoapPortType');
    assert.equal(defs.service.port[0].binding, 'tns:MPSInterfaceSoapBinding');
    assert.equal(defs.service.port[0].address.location, gw.serviceUrl);
    assert.equal(defs.portType.name, 'System');
    assert.equal(defs.binding.name, 'MPSInterfaceSoapBinding');
    assert.equal(defs.binding.binding.style, 'document');
    assert.equal(defs.binding.binding.transport, 'http://schemas.xmlsoap.org/soap/http');
    assert.deepEqual(
      defs.binding.operation.map((o: any) => [o.name, o.operation[0].soapAction, o.input.body.use]),
      OPERATIONS.map((op) => [op, `${NS}/${op}`, 'literal']),
    );
    const schema = defs.types.schema;
    assert.equal(schema.targetNamespace, NS);
    assert.equal(schema.elementFormDefault, 'qualified');
    assert.deepEqual(
      schema.element.map((e: any) => e.name).sort(),
      OPERATIONS.flatMap((op) => [op, `${op}Response`]).sort(),
    );
    assert.equal(schema.complexType.name, 'SystemType');
    assert.deepEqual(schema.simpleType.map((t: any) => t.name).sort(), ['ExpirationType', 'NonNegativeDurationType', 'PositiveDurationType']);
    // Release and Unsubscribe answer with an empty Body: their output messages have no parts,
    // so strict document/literal toolkits (zeep, .NET, JAX-WS) expect no element there.
    const emptyOutputs = ['ReleaseResponse', 'UnsubscribeResponse'];
    assert.deepEqual(defs.message.map((m: any) => m.name).sort(), OPERATIONS.flatMap((op) => [op, `${op}Response`]).sort());
    for (const message of defs.message) {
      if (emptyOutputs.includes(message.name)) {
        assert.equal(message.part, undefined, `message ${message.name} has no parts`);
        continue;
      }
      assert.equal(message.part.length, 1, `message ${message.name} has one part`);
      assert.equal(message.part[0].name, 'parameters');
      assert.equal(message.part[0].element, `tns:${message.name}`);
    }
    for (const operation of defs.binding.operation) {
      assert.equal(operation.output.body.parts, undefined, `${operation.name}: the binding's output takes the message's parts`);
    }
  });

  test('is refused without credentials', async () => {
    const res = await request(`${gw.serviceUrl}?wsdl`);
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['www-authenticate']), /^Basic /);
    await res.body.dump();
  });

  test('holds a valid XML Schema that the requests and the responses of every operation validate against', async () => {
    const schemaText = /<xs:schema[\s\S]*<\/xs:schema>/.exec(wsdl)?.[0];
    assert.ok(schemaText, 'the WSDL has an xs:schema');
    const xsd = `<?xml version="1.0" encoding="UTF-8"?>\n${schemaText}`;
    // A schema that does not compile fails every validation with "failed to compile".
    const compiled = await validate(xsd, xsd);
    assert.doesNotMatch(compiled.output, /failed to compile|Schemas parser error/, compiled.output);

    const m = `xmlns:m="${NS}"`;
    const enumerate = await gw.post(envelope('<m:EnumerateConnectedMachines/>', NS));
    const context = enumerate.xml!.Envelope.Body.EnumerateConnectedMachinesResponse.EnumerationContext as string;
    const delivery = 'http://127.0.0.1:9/notify';
    const exchanges: Array<[string, string]> = [
      ['IsMachineConnected', `<m:IsMachineConnected ${m}><m:Machine><m:SystemName>amt-1</m:SystemName></m:Machine></m:IsMachineConnected>`],
      ['EnumerateConnectedMachines', `<m:EnumerateConnectedMachines ${m}/>`],
      ['Pull', `<m:Pull ${m}><m:EnumerationContext>${context}</m:EnumerationContext><m:MaxElements>2</m:MaxElements></m:Pull>`],
      ['Pull', `<m:Pull ${m}><m:EnumerationContext>${context}</m:EnumerationContext></m:Pull>`],
      ['SubscribeForNotifications', `<m:SubscribeForNotifications ${m}><m:Delivery>${delivery}</m:Delivery></m:SubscribeForNotifications>`],
    ];
    for (const [op, requestElement] of exchanges) {
      const requestCheck = await validate(xsd, requestElement);
      assert.ok(requestCheck.ok, `${op} request: ${requestCheck.output}`);
      const res = await gw.post(envelope(requestElement, NS), { action: `${NS}/${op}` });
      assert.equal(res.status, 200, res.text);
      const responseCheck = await validate(xsd, bodyElement(res.text));
      assert.ok(responseCheck.ok, `${op} response: ${responseCheck.output}`);
    }

    // The schema does constrain: MaxElements 0 and an unqualified child are invalid.
    const zero = await validate(xsd, `<m:Pull ${m}><m:EnumerationContext>x</m:EnumerationContext><m:MaxElements>0</m:MaxElements></m:Pull>`);
    assert.equal(zero.ok, false);
    assert.match(zero.output, /MaxElements/);
    const unqualified = await validate(xsd, `<m:IsMachineConnected ${m}><Machine><SystemName>a</SystemName></Machine></m:IsMachineConnected>`);
    assert.equal(unqualified.ok, false);
    assert.match(unqualified.output, /Machine/);
  });

  test('the soap package runs every operation', async () => {
    const client = await soap.createClientAsync(`${gw.serviceUrl}?wsdl`, { wsdl_headers: { authorization: gw.basic } });
    client.setSecurity(new soap.BasicAuthSecurity(gw.credentials.username, gw.credentials.password));
    const call = async (operation: string, args: object) => ((await client[`${operation}Async`](args)) as [any])[0];

    // SystemName matches hostname, FQDN, IP address or UUID, in any case; machine 7 is offline.
    for (const name of ['amt-1', 'AMT-2.Example.TEST', '127.40.0.3', MACHINES[3]!.uuid!.toUpperCase()]) {
      assert.equal((await call('IsMachineConnected', { Machine: { SystemName: name } })).IsConnected, true, name);
    }
    for (const name of ['amt-7', 'amt-70', 'unknown.example.test']) {
      assert.equal((await call('IsMachineConnected', { Machine: { SystemName: name } })).IsConnected, false, name);
    }

    const started = await call('EnumerateConnectedMachines', {});
    assert.ok(Date.parse(started.Expires) > Date.now(), 'Expires is a future dateTime');
    assert.equal(typeof started.EnumerationContext, 'string');
    const seen: string[] = [];
    let pages = 0;
    for (;;) {
      const page = await call('Pull', { EnumerationContext: started.EnumerationContext, MaxElements: 4 });
      pages++;
      seen.push(...(page.Items ?? []).map((i: { SystemName: string }) => i.SystemName));
      if ('EndOfSequence' in page) break;
      assert.ok(pages < 10, 'EndOfSequence arrives');
    }
    assert.equal(pages, 2);
    assert.deepEqual(seen, NAMES.slice(0, 6));
    assert.ok(isEmptyBody(await call('Release', { EnumerationContext: started.EnumerationContext })));
    await assert.rejects(call('Pull', { EnumerationContext: started.EnumerationContext }), /unknown, released or expired/);

    const subscribed = await call('SubscribeForNotifications', { Delivery: 'http://127.0.0.1:9/soap-package' });
    assert.ok(Date.parse(subscribed.Expires) > Date.now());
    assert.ok(isEmptyBody(await call('Unsubscribe', { Delivery: 'http://127.0.0.1:9/soap-package' })));
    await assert.rejects(call('Unsubscribe', { Delivery: 'http://127.0.0.1:9/soap-package' }), /no subscription/);
  });

  test("strong-soap's client runs every operation", async () => {
    const client = await new Promise<StrongClient>((resolve, reject) =>
      strongSoap.soap.createClient(`${gw.serviceUrl}?wsdl`, { wsdl_headers: { authorization: gw.basic }, WSDL_CACHE: {} }, (err, c) => (err ? reject(err) : resolve(c))),
    );
    client.setSecurity(new strongSoap.soap.BasicAuthSecurity(gw.credentials.username, gw.credentials.password));
    const call = (operation: string, args: object) =>
      new Promise<any>((resolve, reject) => (client[operation] as (a: object, cb: Callback) => void)(args, (err, result) => (err ? reject(err) : resolve(result))));

    assert.equal((await call('IsMachineConnected', { Machine: { SystemName: 'amt-5.example.test' } })).IsConnected, true);
    assert.equal((await call('IsMachineConnected', { Machine: { SystemName: 'amt-7.example.test' } })).IsConnected, false);

    const started = await call('EnumerateConnectedMachines', {});
    const first = await call('Pull', { EnumerationContext: started.EnumerationContext, MaxElements: 5 });
    assert.deepEqual(first.Items.map((i: { SystemName: string }) => i.SystemName), NAMES.slice(0, 5));
    assert.equal('EndOfSequence' in first, false);
    const last = await call('Pull', { EnumerationContext: started.EnumerationContext, MaxElements: 5 });
    assert.deepEqual(last.Items.map((i: { SystemName: string }) => i.SystemName), NAMES.slice(5, 6));
    assert.equal('EndOfSequence' in last, true);
    // An operation whose output has no parts is not "wrapped" to strong-soap (its getMode wants one
    // part each way): the arguments are keyed by the request element.
    assert.ok(isEmptyBody(await call('Release', { Release: { EnumerationContext: started.EnumerationContext } })));
    await assert.rejects(call('Pull', { EnumerationContext: started.EnumerationContext }), /unknown, released or expired/);

    const subscribed = await call('SubscribeForNotifications', { Delivery: 'https://127.0.0.1:9/strong-soap' });
    assert.ok(Date.parse(subscribed.Expires) > Date.now());
    assert.ok(isEmptyBody(await call('Unsubscribe', { Unsubscribe: { Delivery: 'https://127.0.0.1:9/strong-soap' } })));
    await assert.rejects(call('Unsubscribe', { Unsubscribe: { Delivery: 'https://127.0.0.1:9/strong-soap' } }), /no subscription/);
    await assert.rejects(call('Pull', { EnumerationContext: 'made-up' }), /unknown, released or expired/);
  });
});

test('a listener on every interface publishes the host the client used; others their own address', () => {
  assert.equal(publishedBaseUrl('http://0.0.0.0:7793', 'gw.example.test:7793'), 'http://gw.example.test:7793');
  assert.equal(publishedBaseUrl('https://[::]:7793', '[2001:db8::1]:7793'), 'https://[2001:db8::1]:7793');
  assert.equal(publishedBaseUrl('http://0.0.0.0:7793', 'evil"><x y="'), 'http://0.0.0.0:7793', 'a Host header that is not a plain host is ignored');
  assert.equal(publishedBaseUrl('http://127.0.0.1:7793', 'other.example.test'), 'http://127.0.0.1:7793');
});
