/** The MPS address soap-mps learns from the cira plugin's tunnel events, and how cira words it. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { createEventBus } from '../../../core/events/event-bus.js';
import { createLogger } from '../../../core/log/logger.js';
import type { CiraConnection, CiraDownReason } from '../../../plugins/cira/api.js';
import { CIRA_CONFIG_SCHEMA } from '../../../plugins/cira/config.js';
import { ciraMpsAddress } from '../../../plugins/cira/mps-address.js';
import { createAjv } from '../../../core/validation/validator.js';
import { createTunnelAddresses } from '../../../plugins/soap-mps/tunnel-addresses.js';

const ADDRESS = 'mps.example.test';

function tunnel(deviceId: string): CiraConnection {
  return {
    deviceId,
    uuid: '00000000-0000-4000-8000-000000000001',
    remoteAddress: '127.147.9.1',
    remotePort: 40000,
    identity: 'bound',
    verified: true,
    username: 'mps',
    connectedAt: new Date(0).toISOString(),
    lastKeepAliveAt: null,
    forwardedPorts: [16992],
    openChannels: 0,
  };
}

function setup() {
  const events = createEventBus(createLogger({ level: 'silent' }));
  let clock = 1_000_000;
  const addresses = createTunnelAddresses(events, () => clock);
  return {
    addresses,
    up: (deviceId: string, mpsAddress = ADDRESS) => events.publish('CiraTunnelUp', { ...tunnel(deviceId), mpsAddress }),
    down: (deviceId: string, reason: CiraDownReason = 'closed') => events.publish('CiraTunnelDown', { ...tunnel(deviceId), mpsAddress: ADDRESS, reason }),
    status: (deviceId: string, online: boolean) => addresses.addressFor({ deviceId, online, lastSeen: null }),
    advance: (ms: number) => (clock += ms),
  };
}

describe('tunnel addresses', () => {
  test('a device never seen in a tunnel has no CIRA address', () => {
    const t = setup();
    assert.equal(t.status('lan-1', true), undefined);
    assert.equal(t.status('lan-1', false), undefined);
  });

  test('a connect while the tunnel is up and the disconnect after it went down carry the dialed address', () => {
    const t = setup();
    t.up('d1');
    assert.equal(t.status('d1', true), ADDRESS);
    t.down('d1');
    assert.equal(t.status('d1', false), ADDRESS);
    // Consumed: a later change of the device (e.g. over the LAN) is not about the tunnel.
    assert.equal(t.status('d1', true), undefined);
  });

  test('a device back online over the LAN after its tunnel went down is not reported over CIRA', () => {
    const t = setup();
    t.up('d1');
    t.down('d1');
    assert.equal(t.status('d1', true), undefined);
  });

  test('a tunnel replaced by a new one of the same device stays a CIRA connection, whatever order the events come in', () => {
    const t = setup();
    t.up('d1', 'old.example.test');
    t.down('d1', 'replaced');
    t.up('d1', 'new.example.test');
    assert.equal(t.status('d1', true), 'new.example.test');
    t.up('d1', 'newer.example.test');
    t.down('d1', 'replaced');
    assert.equal(t.status('d1', true), 'newer.example.test');
  });

  test('a down tunnel is forgotten after a minute, so the map does not outgrow the live tunnels', () => {
    const t = setup();
    t.up('d1');
    t.down('d1');
    t.advance(61_000);
    assert.equal(t.status('d1', false), undefined);
  });

  test('after close, events no longer change anything', () => {
    const t = setup();
    t.addresses.close();
    t.up('d1');
    assert.equal(t.status('d1', true), undefined);
  });
});

describe('the CIRA MPS address', () => {
  test('the configured public address is used as written', () => {
    assert.equal(ciraMpsAddress('mps.example.test:443', { host: '127.147.9.9', port: 4433 }), 'mps.example.test:443');
  });
  test('else the listener host, with the port only when it is not 4433', () => {
    assert.equal(ciraMpsAddress(null, { host: '127.147.9.9', port: 4433 }), '127.147.9.9');
    assert.equal(ciraMpsAddress(null, { host: '127.147.9.9', port: 14433 }), '127.147.9.9:14433');
    assert.equal(ciraMpsAddress(null, { host: '::1', port: 14433 }), '[::1]:14433');
  });
  test('a listener bound to every address is named by the machine\'s hostname', () => {
    assert.equal(ciraMpsAddress(null, { host: '0.0.0.0', port: 4433 }), hostname());
    assert.equal(ciraMpsAddress(null, { host: '::', port: 4433 }), hostname());
  });
});

describe('plugins.cira.options.publicAddress', () => {
  const validate = createAjv({ useDefaults: true }).compile(CIRA_CONFIG_SCHEMA);
  test('takes a DNS name, an IPv4 or a bracketed IPv6 address, each with an optional port', () => {
    for (const publicAddress of ['mps.example.test', 'mps.example.test:4433', '127.147.9.9', '127.147.9.9:14433', '[::1]:4433', null]) {
      assert.equal(validate({ publicAddress }), true, String(publicAddress));
    }
  });
  test('refuses a URL, a path, spaces or an empty name', () => {
    for (const publicAddress of ['https://mps.example.test', 'mps.example.test/x', 'mps example', '', ':4433', 'mps.example.test:']) {
      assert.equal(validate({ publicAddress }), false, publicAddress);
    }
  });
});
