/** The simulator remembers the parse of a request text apart from its MessageID; its answers stay each request's own. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { buildEnvelope, getRequest, putRequest } from '../../workers/amt/wsman-envelope.js';
import { createDeviceState } from '../sim/device-state.js';
import { deviceConfigs } from '../sim/fleet-options.js';
import { handleWsman } from '../sim/sim-wsman.js';
import { parseRequest } from '../sim/sim-request-parse.js';

const plain = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, parseTagValue: false, processEntities: false });
const device = () => createDeviceState(deviceConfigs({ count: 1, base: '127.20.9.1', seed: 'parse' })[0]!, 'parse');
const relatesTo = (body: string) => /<b:RelatesTo>([^<]*)<\/b:RelatesTo>/.exec(body)?.[1];
const get = (id: string) => buildEnvelope(getRequest('AMT_GeneralSettings', id));

describe('simulator request parsing', () => {
  it('parses a request text once whatever its MessageID, into the tree a plain parse gives', () => {
    const first = parseRequest(get('uuid:11111111-2222-3333-4444-555555555555'));
    const second = parseRequest(get('uuid:99999999-8888-7777-6666-555555555555'));
    assert.equal(second.root, first.root, 'the second request reused the first one’s parse');
    assert.ok(Object.isFrozen(first.root), 'a remembered tree cannot be changed by a handler');
    assert.equal(first.messageId, 'uuid:11111111-2222-3333-4444-555555555555');
    assert.equal(second.messageId, 'uuid:99999999-8888-7777-6666-555555555555');
    const expected = plain.parse(get('sim-message-id')) as unknown;
    assert.deepEqual(first.root, expected);
  });

  it('answers each request with its own MessageID in RelatesTo', () => {
    const state = device();
    for (const id of ['uuid:aaaa-1', 'uuid:bbbb-2', 'uuid:aaaa-1']) {
      const reply = handleWsman(state, get(id));
      assert.equal(reply.status, 200);
      assert.equal(relatesTo(reply.body), id);
    }
  });

  it('gives the hostname a Put set in the next Get of the same request text', () => {
    const state = device();
    const before = handleWsman(state, get('uuid:get-1')).body;
    assert.doesNotMatch(before, /renamed-host/);
    const put = handleWsman(state, buildEnvelope(putRequest('AMT_GeneralSettings', 'uuid:put-1', { HostName: 'renamed-host' })));
    assert.equal(put.status, 200);
    assert.match(handleWsman(state, get('uuid:get-1')).body, /<g:HostName>renamed-host<\/g:HostName>/);
  });

  it('parses as it is a MessageID that is not a plain value, or a second one', () => {
    const state = device();
    const padded = get('x').replace('<a:MessageID>x</a:MessageID>', '<a:MessageID> uuid:padded </a:MessageID>');
    assert.equal(parseRequest(padded).messageId, undefined);
    assert.equal(relatesTo(handleWsman(state, padded).body), 'uuid:padded');
    const twice = get('uuid:first').replace('<Body>', '<Body><a:MessageID>uuid:second</a:MessageID>');
    assert.equal(parseRequest(twice).messageId, undefined);
    assert.equal(relatesTo(handleWsman(state, twice).body), 'uuid:first');
    assert.equal(handleWsman(state, '<Envelope><Header>').status, 400);
  });
});
