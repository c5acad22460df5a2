/**
 * The relay's Origin check against the gateway's configured public origins: a DNS-rebinding page
 * controls both its Origin and the Host it sends, so with `server.publicOrigins` set, an Origin that
 * merely matches Host is refused; the public origins (and the plugin's `origins`) are admitted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { redirectionKit } from './redirection-kit.js';
import { until } from '../../helpers/poll.js';

let kit: FleetGateway;
const k = redirectionKit(() => kit);
const status = (err: unknown) => (err as { status?: number }).status;

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 1, base: '127.63.10.1', provisioningModes: [1], seed: 'public-origins' },
    range: '127.63.10.1',
    plugins: ['rest-api', 'redirection'],
    pluginConfig: { redirection: { options: { origins: ['https://console.example'] } } },
    siteConfig: { server: { publicOrigins: ['https://gateway.example'] } },
  });
});
after(async () => {
  await kit?.cleanup();
});

test('a rebinding page whose Origin matches the Host it sent is refused once public origins are configured', async () => {
  const sim = kit.fleet.devices[0]!;
  const port = new URL(kit.gw.url).port;
  const rebinding = await k.ticket(sim, 'sol');
  await assert.rejects(k.relay(rebinding.url, { origin: `http://attacker.example:${port}`, host: `attacker.example:${port}` }), (err) => status(err) === 403);
  await assert.rejects(k.relay((await k.ticket(sim, 'sol')).url, { origin: kit.gw.url }), (err) => status(err) === 403, 'the listener address is no public origin');
  for (const origin of ['https://gateway.example', 'https://console.example']) {
    const ws = await k.relay((await k.ticket(sim, 'sol')).url, { origin });
    ws.close();
    await until('slot free', () => !sim.redirection.open.has('sol'), 5_000);
  }
});
