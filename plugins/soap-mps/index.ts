/**
 * soap-mps: the SOAP 1.1 MPSInterfaceService (CONTRACT section 8) on its own listener.
 * Which machines are connected comes from the remote-monitor plugin's `presence` service;
 * its DeviceStatusChanged events become notifications to the subscribers, whose MpsAddress follows
 * the cira plugin's tunnel events when that plugin runs. See README.md.
 */
import { hostname } from 'node:os';
import { definePlugin, type PluginContext } from '../../core/plugin-api.js';
import type { DeviceStatusChangedEvent } from 'amt-gateway/remote-monitor';
import { createClientAuth, MPS_MANAGE_PERMISSION, MPS_PERMISSION } from './client-auth.js';
import { createDeliveryPolicy } from './delivery-policy.js';
import { ownListenerMatcher } from './own-listeners.js';
import { CONFIG_SCHEMA, type SoapMpsConfig } from './config.js';
import { createEnumerationStore } from './enumeration-store.js';
import { createSoapHandler } from './http-handler.js';
import { createNotificationSender, type NotificationSender } from './notification-sender.js';
import { NOTIFICATION_ELEMENT, notificationEnvelope } from './notification-xml.js';
import { createOperations } from './operations.js';
import { createPresenceAdapter, systemNameOf, type MachinePresence } from './presence-adapter.js';
import { createSoapDispatcher } from './soap-dispatcher.js';
import { createSubscriptionStore, type SubscriptionStore } from './subscription-store.js';
import { createTunnelAddresses } from './tunnel-addresses.js';
import { publishedBaseUrl, renderWsdl, SERVICE_PATH, serviceNamespace } from './wsdl.js';

/** The host part of a base URL, without IPv6 brackets. */
function hostOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).hostname.replace(/^\[(.*)\]$/, '$1') || undefined;
  } catch {
    return undefined;
  }
}

interface NotifierParts {
  namespace: string;
  presence: MachinePresence;
  subscriptions: SubscriptionStore;
  sender: NotificationSender;
  /** The MPS address the device is connected to (or was, for a disconnect). */
  mpsAddress: (event: DeviceStatusChangedEvent) => string;
  ctx: PluginContext<SoapMpsConfig>;
}

/** Turns a connect or disconnect into a notification for every live subscription. */
function notifier({ namespace, presence, subscriptions, sender, mpsAddress, ctx }: NotifierParts) {
  return (event: DeviceStatusChangedEvent) => {
    // One notification per URI, however many callers subscribed it.
    const receivers = [...new Set(subscriptions.live().map((s) => s.delivery))];
    if (receivers.length === 0) return;
    const machine = presence.describe(event.deviceId);
    if (!machine) {
      ctx.logger.warn('device status changed for an unknown device; no notification sent', { deviceId: event.deviceId });
      return;
    }
    const body = notificationEnvelope(namespace, {
      state: event.online ? 0 : 1,
      deviceFqdn: systemNameOf(machine),
      devicePorts: machine.ports,
      deviceUuid: machine.uuid,
      mpsAddress: mpsAddress(event),
    });
    sender.send(receivers, { body, soapAction: `${namespace}/${NOTIFICATION_ELEMENT}` });
  };
}

export default definePlugin({
  name: 'soap-mps',
  version: '1.0.0',
  kernel: '1',
  dependencies: ['remote-monitor'],
  prefix: SERVICE_PATH,
  permissions: [
    { name: MPS_PERMISSION, description: 'Use the SOAP MPSInterfaceService' },
    { name: MPS_MANAGE_PERMISSION, description: "Remove any caller's SOAP notification subscriptions" },
  ],
  configSchema: CONFIG_SCHEMA,
  env: { AMTGW_SOAP_PORT: { option: 'port', type: 'integer' } },
  async register(ctx) {
    const config = ctx.config;
    const { enumeration } = config;
    if (enumeration.defaultPageSize > enumeration.maxPageSize) {
      throw new Error(`plugins.soap-mps.options.enumeration.defaultPageSize (${enumeration.defaultPageSize}) exceeds maxPageSize (${enumeration.maxPageSize})`);
    }
    const namespace = serviceNamespace(config.nsBase);
    const presence = createPresenceAdapter(ctx.use('presence'));
    const subscriptions = createSubscriptionStore(ctx.store, config.subscriptions);
    await subscriptions.load(async (name) => {
      const user = await ctx.auth.currentUser(name);
      return user ? `user:${user.id}` : null;
    });
    const deliveryPolicy = createDeliveryPolicy({ ...config.notifications, ownListener: ownListenerMatcher(ctx.site.listeners) });
    const operations = createOperations({
      presence,
      enumerations: createEnumerationStore(enumeration),
      subscriptions,
      deliveryPolicy,
      defaultPageSize: enumeration.defaultPageSize,
      maxPageSize: enumeration.maxPageSize,
    });
    // strong-soap only reads the path of soap:address, so the dispatcher needs no real address.
    const dispatcher = await createSoapDispatcher(renderWsdl(namespace, 'http://localhost'), operations);

    let listenerUrl = '';
    let wsdl = '';
    const clientAuth = createClientAuth(ctx.auth, { mode: config.auth, allowedClients: config.allowedClients });
    const stopRevocations = ctx.events.subscribe('AccessRevoked', async (event) => {
      clientAuth.revoked(event);
      // What a user subscribed ends with the user, or with its permission to use the service.
      if (event.reason !== 'deleted' && event.reason !== 'permissions-changed') return;
      if ((await ctx.auth.userById(event.userId))?.permissions.includes(MPS_PERMISSION)) return;
      const removed = await subscriptions.removeAllOf(`user:${event.userId}`);
      if (removed > 0) ctx.logger.info('SOAP subscriptions removed: their user was deleted or lost mps:read', { user: event.username, removed });
    });
    const handler = createSoapHandler({
      namespace,
      maxBodyBytes: config.maxBodyBytes,
      completed: (event) => ctx.events.publish('SoapRequestCompleted', event),
      auth: clientAuth,
      dispatcher,
      wsdl: (req) => {
        const base = publishedBaseUrl(listenerUrl, req.headers.host);
        return base === listenerUrl ? (wsdl ||= renderWsdl(namespace, listenerUrl)) : renderWsdl(namespace, base);
      },
      logger: ctx.logger,
    });

    const sender = createNotificationSender({ ...config.delivery, policy: deliveryPolicy, logger: ctx.logger });
    // A device connected over CIRA is connected to the CIRA listener it dialed; any other device is
    // watched by this gateway as a whole, whose address for SOAP consumers is the SOAP listener's host.
    const tunnels = createTunnelAddresses(ctx.events);
    const lanMpsAddress = () => {
      const host = hostOf(listenerUrl || ctx.site.baseUrl()) ?? '';
      return host === '0.0.0.0' || host === '::' || host === '' ? hostname() : host;
    };
    const mpsAddress = (event: DeviceStatusChangedEvent) => tunnels.addressFor(event) ?? lanMpsAddress();
    const stopListening = ctx.events.subscribe('DeviceStatusChanged', notifier({ namespace, presence, subscriptions, sender, mpsAddress, ctx }));

    ctx.onReady(async () => {
      const host = config.host ?? ctx.site.host;
      const listener = await ctx.listen(handler, { host, port: config.port });
      listenerUrl = listener.url;
      ctx.logger.info('MPSInterfaceService serving', { url: listener.url + SERVICE_PATH, auth: config.auth, namespace });
    });
    ctx.onClose(async () => {
      stopListening();
      stopRevocations();
      tunnels.close();
      await sender.close();
    });
  },
});
