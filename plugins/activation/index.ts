/**
 * activation: the gateway as the server of Intel's rpc-go agent (RPS's protocol), onboarding
 * unprovisioned machines: client or admin control mode, the profile's features and CIRA, then
 * deactivation and maintenance. Off by default (it opens a WebSocket endpoint). See README.md and
 * PROTOCOL.md.
 */
import { definePlugin } from '../../core/plugin-api.js';
import './api.js';
import { ACTIVATION_CONFIG_SCHEMA } from './config.js';
import { ACTIVATION_COLLECTIONS } from './collections.js';
import { createDeviceLink, registerAgentPath } from './device/gate-calls.js';
import { openDomainStore } from './domains/domain-store.js';
import { driveSession, type DriverParts } from './flows/agent-driver.js';
import { registerDomainRoutes } from './routes/domain-routes.js';
import { registerProfileRoutes } from './routes/profile-routes.js';
import { registerCodeRoutes } from './routes/code-routes.js';
import { registerRecordRoutes } from './routes/record-routes.js';
import { createSessionDirectory } from './session/session-directory.js';
import { createActionCodes, sweepEvery } from './store/action-codes.js';
import { openApprovals } from './store/approvals.js';
import { openProfileStore } from './store/profile-store.js';
import { openRecordLog } from './store/record-log.js';
import { createActivateEndpoint } from './wire/activate-endpoint.js';
import { proofThrottleOptions } from './flows/password-proof.js';

/** How often expired one-time codes are removed from the store. */
const SWEEP_MS = 60_000;

export default definePlugin({
  name: 'activation',
  version: '1.0.0',
  kernel: '1',
  dependencies: ['devices'],
  optionalDependencies: ['audit', 'cira'],
  prefix: '/api/activation',
  permissions: [
    { name: 'activation:read', description: 'Read activation profiles (never their passwords), provisioning domains, records and approvals' },
    { name: 'activation:manage', description: 'Manage activation profiles and provisioning certificates, and approve activations that replace a managed device' },
  ],
  routes: [{ path: '/activation', name: 'activation', meta: { title: 'Activation', icon: 'rocket', permission: 'activation:read', order: 85 } }],
  configSchema: ACTIVATION_CONFIG_SCHEMA,
  collections: ACTIVATION_COLLECTIONS,
  async register(ctx) {
    const { config } = ctx;
    const devices = ctx.use('devices');
    const gate = ctx.use('deviceGate');
    const profiles = await openProfileStore(ctx.store.namespace('profiles'), ctx.secrets);
    const domains = await openDomainStore(ctx.store.namespace('domains'), ctx.secrets, config.certificateWarningDays, ctx.logger);
    const { cluster } = ctx;
    // In a cluster, record numbers come from a cluster-wide counter, so that no two instances hand out one.
    const records = await openRecordLog(ctx.store.namespace('records'), config.maxRecords, cluster.enabled ? (atLeast) => cluster.next('activation-records', atLeast) : undefined);
    const approvals = await openApprovals(ctx.store.namespace('approvals'), ctx.store.namespace('approval-requests'), config.approvalValidSeconds, { self: cluster.self.id, isUp: (id) => cluster.isUp(id) });
    const directory = createSessionDirectory();
    const codes = createActionCodes(ctx.store.namespace('codes'));
    await codes.sweep();
    ctx.onClose(sweepEvery(codes, SWEEP_MS, ctx.logger));
    registerAgentPath(gate, directory, ctx.name);
    const parts: DriverParts = {
      profiles,
      domains,
      approvals,
      codes,
      proofs: ctx.auth.attemptThrottle(proofThrottleOptions(config)),
      link: createDeviceLink(gate, devices, config.stepTimeoutMs),
      devices,
      presence: ctx.use('devicePresence'),
      vault: ctx.use('credentials'),
      cira: ctx.useOptional('cira'),
      config,
      records,
      tracking: { records, events: ctx.events, audit: ctx.useOptional('audit'), logger: ctx.logger },
      directory,
      logger: ctx.logger,
    };
    const endpoint = createActivateEndpoint({
      allowedNetworks: config.allowedNetworks,
      gateAllows: (address) => gate.allows(address),
      maxSessions: config.maxSessions,
      maxSessionsPerAddress: config.maxSessionsPerAddress,
      maxMessageBytes: config.maxMessageBytes,
      session: { helloTimeoutMs: config.helloTimeoutMs, stepTimeoutMs: config.stepTimeoutMs, heartbeatSeconds: config.heartbeatSeconds },
      logger: ctx.logger,
      drive: (session) => driveSession(parts, session),
    });
    ctx.http.onUpgrade(config.path, endpoint.upgrade);
    ctx.openapi.addTag('activation', 'Activation of unprovisioned devices by the rpc-go agent (WebSocket at the configured path, default /activate): profiles, provisioning certificates, records');
    registerProfileRoutes(ctx, profiles);
    registerDomainRoutes(ctx, domains);
    registerRecordRoutes(ctx, records, approvals, (uuid) => devices.findByUuid(uuid)?.id);
    registerCodeRoutes(ctx, codes, (uuid) => parts.vault.boundTo(uuid) !== undefined, config.codeValidSeconds);
    ctx.onStopping(() => endpoint.close());
  },
});
