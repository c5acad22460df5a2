/** The request envelopes parse back to what AMT expects, and the parser rejects what it must. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { AmtError } from '../../workers/amt/errors.js';
import { resourceUri } from '../../workers/amt/resource-uris.js';
import { buildEnvelope, enumerateRequest, getRequest, invokeRequest, pullRequest, putRequest } from '../../workers/amt/wsman-envelope.js';
import { faultError, faultOf } from '../../workers/amt/wsman-fault.js';
import { parseEnvelope, textOf } from '../../workers/amt/wsman-parse.js';

const strict = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: false, parseTagValue: false });
type Tree = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const parse = (xml: string): Tree => strict.parse(xml) as Tree;

describe('request envelopes', () => {
  it('builds a Get with the SOAP 1.2 / WS-Addressing / WS-Man header AMT expects', () => {
    const tree = parse(buildEnvelope(getRequest('AMT_GeneralSettings', 'uuid:1')));
    const env = tree['Envelope'];
    assert.equal(env['@xmlns'], 'http://www.w3.org/2003/05/soap-envelope');
    assert.equal(env['@xmlns:a'], 'http://schemas.xmlsoap.org/ws/2004/08/addressing');
    assert.equal(env['@xmlns:w'], 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd');
    const h = env['Header'];
    assert.equal(h['a:Action'], 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Get');
    assert.equal(h['a:To'], '/wsman');
    assert.equal(h['w:ResourceURI'], 'http://intel.com/wbem/wscim/1/amt-schema/1/AMT_GeneralSettings');
    assert.equal(h['a:MessageID'], 'uuid:1');
    assert.equal(h['a:ReplyTo']['a:Address'], 'http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous');
    assert.equal(h['w:OperationTimeout'], 'PT60S');
  });

  it('maps class prefixes to resource URIs', () => {
    assert.equal(resourceUri('CIM_SoftwareIdentity'), 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_SoftwareIdentity');
    assert.equal(resourceUri('IPS_OptInService'), 'http://intel.com/wbem/wscim/1/ips-schema/1/IPS_OptInService');
    assert.throws(() => resourceUri('Foo_Bar'));
  });

  it('builds Enumerate and Pull with the context and MaxElements', () => {
    const e = parse(buildEnvelope(enumerateRequest('CIM_SoftwareIdentity', '2')))['Envelope'];
    assert.equal(e['Header']['a:Action'], 'http://schemas.xmlsoap.org/ws/2004/09/enumeration/Enumerate');
    assert.equal(e['Body']['Enumerate']['@xmlns'], 'http://schemas.xmlsoap.org/ws/2004/09/enumeration');
    const p = parse(buildEnvelope(pullRequest('CIM_SoftwareIdentity', '3', 'E2020000-0000', 25)))['Envelope'];
    assert.equal(p['Body']['Pull']['EnumerationContext'], 'E2020000-0000');
    assert.equal(p['Body']['Pull']['MaxElements'], '25');
  });

  it('builds a method call with an _INPUT body and an endpoint reference', () => {
    const xml = buildEnvelope(
      invokeRequest('CIM_PowerManagementService', 'RequestPowerStateChange', '4', {
        PowerState: 8,
        ManagedElement: { resourceUri: resourceUri('CIM_ComputerSystem'), selectors: { CreationClassName: 'CIM_ComputerSystem', Name: 'ManagedSystem' } },
      }),
    );
    const env = parse(xml)['Envelope'];
    assert.equal(env['Header']['a:Action'], 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_PowerManagementService/RequestPowerStateChange');
    const input = env['Body']['h:RequestPowerStateChange_INPUT'];
    assert.equal(input['@xmlns:h'], 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_PowerManagementService');
    assert.equal(input['h:PowerState'], '8');
    const ref = input['h:ManagedElement'];
    assert.equal(ref['a:Address'], 'http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous');
    assert.equal(ref['a:ReferenceParameters']['w:ResourceURI'], 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ComputerSystem');
    assert.deepEqual(
      ref['a:ReferenceParameters']['w:SelectorSet']['w:Selector'].map((s: Tree) => [s['@Name'], s['#text']]),
      [
        ['CreationClassName', 'CIM_ComputerSystem'],
        ['Name', 'ManagedSystem'],
      ],
    );
  });

  it('builds a Put and a selector set, escaping text', () => {
    const xml = buildEnvelope(putRequest('AMT_GeneralSettings', '5', { HostName: 'a<b&"c"', DomainName: ['x', 'y'] }, { InstanceID: 'Intel(r) AMT: General Settings' }));
    const env = parse(xml)['Envelope'];
    assert.equal(env['Header']['w:SelectorSet']['w:Selector']['@Name'], 'InstanceID');
    // Round trip through the gateway's own parser decodes the predefined entities.
    const back = parseEnvelope(xml);
    const instance = back.body['AMT_GeneralSettings'] as Record<string, unknown>;
    assert.equal(textOf(instance['HostName'] as string), 'a<b&"c"');
    assert.deepEqual(instance['DomainName'], ['x', 'y']);
  });
});

describe('response parsing safety', () => {
  it('refuses a document with a DOCTYPE (no entity expansion, no external entities)', () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "boom">]><Envelope><Body><a>&x;</a></Body></Envelope>';
    assert.throws(() => parseEnvelope(xml), (e: unknown) => e instanceof AmtError && e.code === 'AMT_ERR_BAD_RESPONSE');
  });
  it('refuses text that is not a SOAP envelope', () => {
    for (const body of ['', 'garbage', '<html><body>hi</body></html>', '<Envelope><Header/></Envelope>']) {
      assert.throws(() => parseEnvelope(body), (e: unknown) => e instanceof AmtError && e.code === 'AMT_ERR_BAD_RESPONSE', body);
    }
  });
  it("refuses element names that would reach an object's prototype; inherited names stay plain data", () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const xml = `<s:Envelope xmlns:s="x"><s:Body><${name}><Polluted>1</Polluted></${name}></s:Body></s:Envelope>`;
      assert.throws(() => parseEnvelope(xml), (e: unknown) => e instanceof AmtError && e.code === 'AMT_ERR_BAD_RESPONSE', name);
    }
    const env = parseEnvelope('<s:Envelope xmlns:s="x"><s:Body><r __proto__="a"><toString><x>1</x></toString></r></s:Body></s:Envelope>');
    const r = env.body['r'] as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(r), Object.prototype);
    assert.equal(r['@__proto__'], 'a');
    assert.equal(typeof r.toString, 'function');
    assert.equal(({} as Record<string, unknown>)['Polluted'], undefined);
  });
  it('keeps unknown entity references literal and decodes numeric ones', () => {
    const env = parseEnvelope('<s:Envelope xmlns:s="x"><s:Body><v>&foo; &#65;&#x42;</v></s:Body></s:Envelope>');
    assert.equal(env.body['v'], '&foo; AB');
  });
});

describe('SOAP faults', () => {
  const fault = `<?xml version="1.0" encoding="UTF-8"?><a:Envelope xmlns:a="http://www.w3.org/2003/05/soap-envelope" xmlns:b="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:c="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd"><a:Header><b:Action a:mustUnderstand="true">http://schemas.xmlsoap.org/ws/2004/08/addressing/fault</b:Action></a:Header><a:Body><a:Fault><a:Code><a:Value>a:Sender</a:Value><a:Subcode><a:Value>b:DestinationUnreachable</a:Value></a:Subcode></a:Code><a:Reason><a:Text xml:lang="en-US">No route can be determined to reach the destination role defined by the WS-Addressing To.</a:Text></a:Reason><a:Detail><c:FaultDetail>http://schemas.dmtf.org/wbem/wsman/1/wsman/faultDetail/InvalidResourceURI</c:FaultDetail></a:Detail></a:Fault></a:Body></a:Envelope>`;
  it('reads code, subcode, reason and detail without prefixes', () => {
    assert.deepEqual(faultOf(parseEnvelope(fault)), {
      code: 'Sender',
      subcode: 'DestinationUnreachable',
      reason: 'No route can be determined to reach the destination role defined by the WS-Addressing To.',
      detail: 'http://schemas.dmtf.org/wbem/wsman/1/wsman/faultDetail/InvalidResourceURI',
    });
  });
  it('turns a fault into AMT_ERR_FAULT carrying subcode, reason and status', () => {
    const error = faultError(faultOf(parseEnvelope(fault))!, 400);
    assert.equal(error.code, 'AMT_ERR_FAULT');
    assert.equal(error.detail.subcode, 'DestinationUnreachable');
    assert.equal(error.detail.status, 400);
    assert.match(error.message, /DestinationUnreachable/);
    assert.equal(error.toFailure().reason, 'No route can be determined to reach the destination role defined by the WS-Addressing To.');
  });
});
