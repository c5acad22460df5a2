/**
 * cira: the CIRA server devices dial into (APF over TLS), the MPS accounts they sign in with, and
 * the `cira` service that reaches a device through its tunnel. See README.md and INTERFACE.md.
 */
import { definePlugin } from '../../core/plugin-api.js';
import { openAccountStore } from './accounts/account-store.js';
import { createDeviceAccounts } from './accounts/device-accounts.js';
import { openBindingStore } from './identity/uuid-bindings.js';
import type { CiraService } from './api.js';
import { CIRA_CONFIG_SCHEMA, type CiraConfig } from './config.js';
import { registerCiraIntegration } from './integration.js';
import { splitHostPort } from '../../core/net/host-port.js';
import { ciraMpsAddress, STANDARD_CIRA_PORT } from './mps-address.js';
import { registerAccountRoutes } from './routes/account-routes.js';
import { registerBindingRoutes } from './routes/binding-routes.js';
import { registerConnectionRoutes } from './routes/connection-routes.js';
import { createCiraServer } from './server/cira-server.js';
import { loadServerCertificate } from './server/server-certificate.js';

export default definePlugin<CiraConfig>({
  name: 'cira',
  version: '1.0.0',
  kernel: '1',
  dependencies: ['devices'],
  optionalDependencies: ['audit'],
  prefix: '/api/cira',
  permissions: [
    { name: 'cira:read', description: 'Read CIRA tunnels, MPS accounts (never their passwords) and the CIRA server certificate' },
    { name: 'cira:manage', description: 'Manage MPS accounts, drop CIRA tunnels, accept an unverified tunnel as its device and rebind a device UUID to another MPS account' },
  ],
  routes: [{ path: '/cira', name: 'cira', meta: { title: 'CIRA', icon: 'cloud', permission: 'cira:read', order: 80 } }],
  configSchema: CIRA_CONFIG_SCHEMA,
  env: { AMTGW_CIRA_PORT: { option: 'port', type: 'integer' } },
  async register(ctx) {
    const config = ctx.config;
    if (config.keepAliveTimeoutSeconds <= config.keepAliveIntervalSeconds) {
      ctx.logger.warn('cira keepAliveTimeoutSeconds is not above keepAliveIntervalSeconds: healthy devices will be dropped between keep-alives', {
        keepAliveIntervalSeconds: config.keepAliveIntervalSeconds,
        keepAliveTimeoutSeconds: config.keepAliveTimeoutSeconds,
      });
    }
    const certificate = await loadServerCertificate(config.tls, ctx.site.dataDir);
    const accounts = await openAccountStore(ctx.store.namespace('accounts'), ctx.secrets);
    const bindings = await openBindingStore(ctx.store.namespace('bindings'));
    const server = createCiraServer({ config, host: config.host ?? ctx.site.host, certificate, accounts, bindings, logger: ctx.logger });
    // Registered before the integration's hooks, so it runs after them: reads through the tunnels stop first.
    ctx.onStopping(() => server.close());
    let mpsAddress = '';
    const deviceAccounts = createDeviceAccounts(accounts, bindings);
    const service: CiraService = Object.assign(server.service, {
      dialIn: () => (mpsAddress ? { ...splitHostPort(mpsAddress, STANDARD_CIRA_PORT), certificatePem: certificate.cert } : null),
      provisionAccount: (uuid: string) => deviceAccounts.provision(uuid),
      releaseAccount: (uuid: string) => deviceAccounts.release(uuid),
    });
    service.onTunnel((event) => {
      if (event.type === 'up') ctx.events.publish('CiraTunnelUp', { ...event.connection, mpsAddress });
      else if (event.type === 'down') ctx.events.publish('CiraTunnelDown', { ...event.connection, mpsAddress, reason: event.reason });
    });
    registerCiraIntegration(ctx, service, config.tunnelOperations, config.sessionChannelWindowBytes);
    await server.listen();
    const address = service.address();
    if (address) ctx.declareListener(address);
    const behindHaproxy = server.plan.kind === 'proxy-v2';
    // Behind HAProxy the listener is loopback: devices dial HAProxy, whose address only publicAddress can tell.
    mpsAddress = ciraMpsAddress(config.publicAddress, behindHaproxy ? null : address);
    if (behindHaproxy && !config.publicAddress) {
      ctx.logger.warn('cira behind HAProxy without publicAddress: SOAP notifications name this host on port 4433 as the MPS address', { mpsAddress });
    }
    ctx.logger.info('cira server listening', {
      tls: behindHaproxy ? 'haproxy (PROXY v2 listener)' : 'gateway',
      host: address?.host,
      port: address?.port,
      socketPath: 'path' in server.plan.target ? server.plan.target.path : undefined,
      certificateSha256: certificate.sha256,
    });
    ctx.provide('cira', service);
    ctx.openapi.addTag('cira', 'CIRA: devices that dial in over APF/TLS, the MPS accounts they use, their tunnels');
    registerAccountRoutes(ctx, accounts);
    registerConnectionRoutes(ctx, service);
    registerBindingRoutes(ctx, { cira: service, accounts, bindings });
  },
});
