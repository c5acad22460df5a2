/**
 * The client reads each property by its schema type, as the published vectors show firmware writing
 * it (the copies in test/sim/answers/vectors): `CanModifyOptInPolicy` a uint32 (`1`/`0`),
 * `ListenerEnabled` and `NoMoreRecords` xs:booleans (`true`/`false`, and the schema's `1`/`0`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { booleanOf, parseEnvelope, parseInstance, parseMethodOutput } from '../../workers/amt/wsman-parse.js';
import { decodeRedirectionFeatures } from '../../workers/amt/reads/redirection-features.js';
import { decodeRecordsPage } from '../../workers/amt/reads/event-log.js';

const vector = (path: string) => readFileSync(fileURLToPath(new URL(`../sim/answers/vectors/${path}`, import.meta.url)), 'utf8');
const instance = (xml: string, className: string) => parseInstance(parseEnvelope(xml), className);

const service = vector('amt/redirectionservice/get.xml');
const kvm = vector('cim/kvm/get.xml');
const optIn = vector('ips/optin/get.xml');
const features = (serviceXml = service, optInXml = optIn) =>
  decodeRedirectionFeatures(instance(serviceXml, 'AMT_RedirectionService'), instance(kvm, 'CIM_KVMRedirectionSAP'), instance(optInXml, 'IPS_OptInService'));

test("the vectors' redirection service, KVM access point and opt-in service: everything on, the consent policy modifiable (CanModifyOptInPolicy 1)", () => {
  assert.deepEqual(features(), { kvm: true, sol: true, ider: true, listener: true, kvmSessionOpen: false, optInRequired: 0, optInState: 0, canModifyOptInPolicy: true });
});

test('CanModifyOptInPolicy 0 is a fixed policy; a device that does not send it leaves the change to the device', () => {
  assert.equal(features(service, optIn.replace('<g:CanModifyOptInPolicy>1<', '<g:CanModifyOptInPolicy>0<')).canModifyOptInPolicy, false);
  assert.equal(features(service, optIn.replace(/<g:CanModifyOptInPolicy>1<\/g:CanModifyOptInPolicy>/, '')).canModifyOptInPolicy, true);
});

test('ListenerEnabled read as an xs:boolean: true and 1 are on, false and 0 off', () => {
  for (const [text, on] of [['true', true], ['1', true], ['false', false], ['0', false]] as const) {
    assert.equal(features(service.replace('<g:ListenerEnabled>true<', `<g:ListenerEnabled>${text}<`)).listener, on, text);
  }
});

test('NoMoreRecords read as an xs:boolean', () => {
  const records = vector('amt/messagelog/getrecords.xml');
  const page = (text: string) => decodeRecordsPage(parseMethodOutput(parseEnvelope(records.replace('<g:NoMoreRecords>true<', `<g:NoMoreRecords>${text}<`)), 'GetRecords'));
  assert.equal(page('true').noMoreRecords, true);
  assert.equal(page('1').noMoreRecords, true);
  assert.equal(page('false').noMoreRecords, false);
  assert.equal(page('0').noMoreRecords, false);
});

test('booleanOf: the lexical forms of xs:boolean, nothing else', () => {
  assert.deepEqual(['true', '1', ' false ', '0', 'True', 'yes', '', undefined].map((v) => booleanOf(v)), [true, true, false, false, null, null, null, null]);
});
