/** The routes of the redirection plugin: features and consent of a device, and console sessions. */
import type { PluginContext, RouteRequest } from '../../core/plugin-api.js';
import type { Device } from 'amt-gateway/devices';
import type { RedirectionConfig } from './config.js';
import type { RedirectionReads } from './device-state.js';
import {
  CONSENT_CODE_SCHEMA,
  FEATURES_REQUEST_SCHEMA,
  IDER_PROGRESS_SCHEMA,
  IDER_SESSION_SCHEMA,
  REDIRECTION_STATE_SCHEMA,
  SESSION_LIST_SCHEMA,
  SESSION_REQUEST_SCHEMA,
  SESSION_TICKET_SCHEMA,
  type RedirectionState,
  type SessionInfo,
} from './schemas.js';
import { PERMISSION, type SessionService } from './session-service.js';
import { createConsentCodes } from './consent-codes.js';
import type { IderService } from './ider-service.js';
import type { SessionDirectory } from './cluster-sessions.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const params = { deviceId: { description: 'Device id' } };
const tags = ['redirection'];

/** @param directory in a cluster, the sessions of the other instances: listed too, each with its `instance`. */
export function registerRedirectionRoutes(ctx: PluginContext<RedirectionConfig>, reads: RedirectionReads, sessions: SessionService, ider: IderService, directory?: SessionDirectory): void {
  ctx.openapi.addSchema('RedirectionState', REDIRECTION_STATE_SCHEMA);
  ctx.openapi.addSchema('RedirectionSessionTicket', SESSION_TICKET_SCHEMA);
  ctx.openapi.addSchema('RedirectionSessions', SESSION_LIST_SCHEMA);
  ctx.openapi.addSchema('IderSession', IDER_SESSION_SCHEMA);
  ctx.openapi.addSchema('IderSessionProgressEvent', IDER_PROGRESS_SCHEMA);
  ctx.openapi.addTag('redirection', 'Remote console: KVM and serial-over-LAN sessions, features and user consent');
  const audit = ctx.useOptional('audit');
  const kit: RouteKit = {
    failures: ctx.use('deviceGate').problemResponses,
    known: (id) => ctx.use('devices').require(id),
    audited: (req, action, work, detail = {}, detailOf) => (audit ? audit.track({ by: req, action, target: req.params['deviceId'] ?? null, detail }, work, detailOf) : work()),
    stateOf: async (deviceId, read) => {
      const { features, userConsent, optInState } = await read;
      const here = sessions.forDevice(deviceId).map(({ id, mode, user, startedAt }) => ({ id, mode, user, startedAt }));
      const open = [...here, ...(directory?.remote().filter((s) => s.deviceId === deviceId).map(({ id, mode, user, startedAt }) => ({ id, mode, user, startedAt })) ?? [])];
      return { deviceId, features, userConsent, optInState, sessions: open };
    },
  };
  // The session list first: `/:deviceId` would otherwise take `sessions` for a device id.
  registerSessionRoutes(ctx, sessions, ider, kit, directory);
  registerDeviceStateRoutes(ctx, reads, kit);
}

/** What the route groups share: device lookup, the device problems, the audit wrapper and the state answer. */
interface RouteKit {
  failures: Record<number, { description: string }>;
  known(id: string): Readonly<Device>;
  /** Runs `work` recorded in the audit trail as `action` on the device (when the trail is on). */
  audited<T>(req: RouteRequest, action: string, work: () => Promise<T>, detail?: Record<string, unknown>, detailOf?: (result: T) => Record<string, unknown>): Promise<T>;
  stateOf(deviceId: string, read: Promise<Awaited<ReturnType<RedirectionReads['read']>>>): Promise<RedirectionState>;
}

/** `GET /sessions`, `DELETE /sessions/{id}`, `POST /{deviceId}/sessions`. */
function registerSessionRoutes(ctx: PluginContext<RedirectionConfig>, sessions: SessionService, ider: IderService, { failures, audited }: RouteKit, directory: SessionDirectory | undefined): void {
  ctx.http.route({
    method: 'get',
    path: '/sessions',
    summary: 'Open remote console sessions',
    description: 'In a cluster, the sessions of every instance that is up, each with `instance`; the byte counts of another instance\'s sessions are kept there (0 here).',
    tags,
    permission: PERMISSION,
    responses: { 200: { description: 'Open sessions (issued, unused tickets are not sessions)', schema: ref('RedirectionSessions') } },
    handler: (): SessionInfo[] => {
      const here = sessions.list().map(({ id, mode, deviceId, user, startedAt, bytesToDevice, bytesFromDevice }) => ({ id, mode, deviceId, user, startedAt, bytesToDevice, bytesFromDevice }));
      if (!directory) return here;
      const self = ctx.cluster.self.name;
      return [...here.map((s) => ({ ...s, instance: self })), ...directory.remote().map(({ id, mode, deviceId, user, startedAt, instance }) => ({ id, mode, deviceId, user, startedAt, bytesToDevice: 0, bytesFromDevice: 0, instance }))];
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/sessions/:id',
    summary: 'End a remote console session',
    tags,
    permission: PERMISSION,
    params: { id: { description: 'Session id' } },
    responses: { 204: { description: 'Ended' }, 404: { description: 'No open session with this id' } },
    handler: (req, reply) => {
      sessions.end(req.params.id, { user: req.user?.username ?? null, address: req.ip });
      reply.status(204);
    },
  });
  ctx.http.route({
    method: 'post',
    path: '/:deviceId/sessions',
    summary: 'Open a KVM or SOL session (a single-use WebSocket URL), or an IDE-R session the gateway serves',
    description:
      'The ticket in `url` is valid once, for `ticketTtlSeconds` (60 s), for this user and device, and holds no device slot until used. `ider` with `cd` and/or `floppy` (image ids) opens the IDE-R session of the device at once and serves the images read-only until DELETE, the device closing it or the idle bound (`ider.idleTimeoutSeconds`); boot from it with the power action (`boot: "ider-cd"`). 409 `GW_ERR_REDIRECTION_BUSY` when the mode is open already, 409 `GW_ERR_CONSENT_REQUIRED` when consent is needed and not given, 422 `GW_ERR_REDIRECTION_DISABLED` when the feature is off.',
    tags,
    permission: PERMISSION,
    params,
    body: SESSION_REQUEST_SCHEMA,
    responses: {
      201: { description: 'Ticket issued (KVM, SOL) or IDE-R session open', schema: { anyOf: [ref('RedirectionSessionTicket'), ref('IderSession')] } },
      ...failures,
      429: { description: 'The user holds its bound of tickets or sessions (`GW_ERR_REDIRECTION_USER_LIMIT`); see Retry-After' },
    },
    handler: async (req, reply) => {
      if (req.body.mode === 'ider') {
        const { cd, floppy } = req.body;
        reply.status(201);
        return ider.open(req.user!, req.params.deviceId, { cd, floppy }, req.ip);
      }
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.header('Authorization'))?.[1] ?? '';
      const create = () => sessions.create(req.user!, ctx.auth.tokenId(bearer), req.params.deviceId, req.body.mode);
      const ticket = await audited(req, 'remote.session.start', create, { mode: req.body.mode }, (t) => ({ sessionId: t.id }));
      reply.status(201);
      return ticket;
    },
  });
}

/** A device's features, consent and its change: `GET /{deviceId}`, `PUT /{deviceId}/features`, consent start, code, cancel. */
function registerDeviceStateRoutes(ctx: PluginContext<RedirectionConfig>, reads: RedirectionReads, { failures, known, audited, stateOf }: RouteKit): void {
  const codes = createConsentCodes(reads, ctx.config.consent, ctx.auth);
  ctx.http.route({
    method: 'get',
    path: '/:deviceId',
    summary: "A device's KVM / SOL / IDER features, consent and open sessions",
    tags,
    permission: PERMISSION,
    params,
    responses: { 200: { description: 'As the device reports them', schema: ref('RedirectionState') }, ...failures },
    handler: (req) => stateOf(req.params.deviceId, reads.read(known(req.params.deviceId))),
  });
  ctx.http.route({
    method: 'put',
    path: '/:deviceId/features',
    summary: 'Enable or disable KVM / SOL / IDER, or change the consent policy',
    description: 'Turning KVM, SOL or IDER on also turns the redirection listener on. Returns the state read back from the device. A consent policy change on a device in client control mode is 422 `GW_ERR_CONSENT_POLICY_FIXED`.',
    tags,
    permission: PERMISSION,
    params,
    body: FEATURES_REQUEST_SCHEMA,
    responses: { 200: { description: 'Read back after the write', schema: ref('RedirectionState') }, ...failures },
    handler: (req) => audited(req, 'remote.features', () => stateOf(req.params.deviceId, reads.write(known(req.params.deviceId), req.body)), { ...req.body }),
  });
  ctx.http.route({
    method: 'post',
    path: '/:deviceId/consent',
    summary: 'Start user consent: the device shows a 6-digit code on its screen',
    tags,
    permission: PERMISSION,
    params,
    responses: { 202: { description: 'Consent started' }, ...failures },
    handler: async (req, reply) => {
      const optInState = await audited(req, 'remote.consent.start', () => reads.startConsent(known(req.params.deviceId)), {}, (state) => ({ optInState: state }));
      reply.status(202);
      return { optInState };
    },
  });
  ctx.http.route({
    method: 'post',
    path: '/:deviceId/consent/code',
    summary: 'Send the code the person at the machine read out',
    tags,
    permission: PERMISSION,
    params,
    body: CONSENT_CODE_SCHEMA,
    description: 'Wrong codes are bounded per device and user (`consent.maxWrongCodes`) and per device (`consent.maxWrongCodesPerDevice`) within `consent.windowSeconds`; past either, 429 without asking the device.',
    responses: {
      200: { description: 'Consent given' },
      ...failures,
      422: { description: 'Wrong code (`GW_ERR_CONSENT_CODE_WRONG`)' },
      429: { description: 'Too many wrong codes for this device (`GW_ERR_CONSENT_CODE_LIMIT`); see Retry-After' },
    },
    // Never the code in the record: it is what lets a session in.
    handler: async (req) => ({ optInState: await audited(req, 'remote.consent.code', () => codes.send(known(req.params.deviceId), req.user!, req.body.code), {}, (state) => ({ optInState: state })) }),
  });
  ctx.http.route({
    method: 'delete',
    path: '/:deviceId/consent',
    summary: 'Cancel user consent',
    tags,
    permission: PERMISSION,
    params,
    responses: { 204: { description: 'Cancelled' }, ...failures },
    handler: async (req, reply) => {
      await audited(req, 'remote.consent.cancel', () => reads.cancelConsent(known(req.params.deviceId)));
      reply.status(204);
    },
  });
}
