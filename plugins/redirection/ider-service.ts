/**
 * IDE redirection sessions: the gateway itself serves uploaded images to a device's virtual CD-ROM
 * and floppy, read-only, so no browser has to stay open. Opened with the same checks as KVM and SOL
 * (feature on, consent, one per device, the gateway's session bound), through the device gate in one
 * place (`openDeviceSession`); held in the sessions registry with the others, so listing, DELETE,
 * the user check and shutdown treat them alike. Progress goes to the hub, start and end to the log
 * and the audit trail.
 */
import { randomUUID } from 'node:crypto';
import type { AuthenticatedUser, EventBus, Logger, RequestActor } from '../../core/plugin-api.js';
import type { Device, DeviceRegistry, OpenRedirection, SessionRequest } from 'amt-gateway/devices';
import type { AuditTrail } from 'amt-gateway/audit';
import type { ImageKind, ImageService, OpenedImage } from 'amt-gateway/images';
import { iderBegin } from '../../workers/amt/redirection/ider/ider-open.js';
import { IderServer, type IderEndReason } from '../../workers/amt/redirection/ider/ider-server.js';
import type { RedirectionConfig } from './config.js';
import { needsConsent, type RedirectionReads } from './device-state.js';
import { RedirectionErrors } from './errors.js';
import { IderErrors } from './ider-errors.js';
import type { EndReason, LiveSession, SessionRegistry } from './sessions.js';

export interface IderSessionView {
  id: string;
  mode: 'ider';
  deviceId: string;
  cd: string | null;
  floppy: string | null;
  startedAt: string;
}

export interface IderRequest {
  cd?: string | undefined;
  floppy?: string | undefined;
}

export interface IderServiceDeps {
  devices: DeviceRegistry;
  reads: RedirectionReads;
  /** Opens and signs in a session through the device gate (the credential stays in the gate). */
  openSession<T>(device: Readonly<Device>, request: SessionRequest<T>): Promise<OpenRedirection<T>>;
  images: ImageService | undefined;
  registry: SessionRegistry;
  config: RedirectionConfig;
  logger: Logger;
  events: EventBus;
  audit: AuditTrail | undefined;
}

const END_OF: Record<EndReason, IderEndReason> = { viewer: 'deleted', device: 'device', deviceIdleKvm: 'device', idle: 'idle', deleted: 'deleted', forbidden: 'forbidden', revoked: 'forbidden', shutdown: 'shutdown', protocol: 'protocol' };

export function createIderService({ devices, reads, openSession, images, registry, config, logger, events, audit }: IderServiceDeps) {
  const { ider } = config;
  const live = new Map<string, { view: IderSessionView; server: IderServer }>();

  /** Opens and signs in the device's IDE-R session: the one place it goes through the device gate. */
  async function openDeviceSession(device: Device) {
    const begin = iderBegin({ rxTimeoutMs: Math.min(65535, ider.heartbeatSeconds * 3000), heartbeatMs: ider.heartbeatSeconds * 1000, attach: 'onReboot' });
    return openSession(device, { mode: 'ider', begin }).catch((err: { code?: string }) => {
      if (err.code === 'GW_ERR_DEVICE_BUSY') throw RedirectionErrors.busy(device, 'ider');
      if (err.code === 'GW_ERR_DEVICE_UNSUPPORTED') throw RedirectionErrors.disabled(device, 'ider');
      throw err;
    });
  }

  async function openImages(request: IderRequest): Promise<{ cd?: OpenedImage; floppy?: OpenedImage }> {
    if (!images) throw IderErrors.imagesOff();
    const opened: { cd?: OpenedImage; floppy?: OpenedImage } = {};
    try {
      for (const kind of ['cd', 'floppy'] as const satisfies readonly ImageKind[]) {
        const id = request[kind];
        if (id !== undefined) opened[kind] = await images.open(id, kind);
      }
    } catch (error) {
      await Promise.all(Object.values(opened).map((o) => o.release()));
      throw error;
    }
    return opened;
  }

  async function open(user: AuthenticatedUser, deviceId: string, request: IderRequest, address: string): Promise<IderSessionView> {
    const device = devices.require(deviceId);
    if (request.cd === undefined && request.floppy === undefined) throw IderErrors.noMedium();
    if (!images) throw IderErrors.imagesOff();
    for (const kind of ['cd', 'floppy'] as const) {
      const id = request[kind];
      if (id !== undefined && !images.get(id)) throw IderErrors.imageNotFound(id);
    }
    if (registry.userFull(user.id, 'ider')) throw IderErrors.userSessions(config.ider.maxSessionsPerUser);
    if (registry.busy(device.id, 'ider')) throw RedirectionErrors.busy(device, 'ider');
    const state = await reads.read(device);
    if (!state.features.ider) throw RedirectionErrors.disabled(device, 'ider');
    if (needsConsent(state, 'ider')) throw RedirectionErrors.consentRequired(device);
    if (registry.full()) throw RedirectionErrors.tooManySessions();
    const release = registry.reserve(device.id, 'ider', user.id);
    if (!release) throw RedirectionErrors.busy(device, 'ider');
    try {
      const media = await openImages(request);
      const releaseMedia = () => Promise.all(Object.values(media).map((o) => o.release()));
      let session;
      try {
        session = await openDeviceSession(device);
      } catch (error) {
        await releaseMedia();
        throw error;
      }
      const server = new IderServer(session.stream, session.leftover, { ...(media.cd ? { cd: media.cd.medium } : {}), ...(media.floppy ? { floppy: media.floppy.medium } : {}) }, session.begun.encoder, session.begun.reply.readBufferSize, {
        heartbeatMs: ider.heartbeatSeconds * 1000,
        silenceMs: ider.heartbeatSeconds * 3000,
        idleMs: ider.idleTimeoutSeconds * 1000,
        pieceBytes: ider.pieceBytes,
      });
      const view: IderSessionView = { id: randomUUID(), mode: 'ider', deviceId: device.id, cd: request.cd ?? null, floppy: request.floppy ?? null, startedAt: new Date().toISOString() };
      track(view, server, user, address, releaseMedia);
      return view;
    } finally {
      release();
    }
  }

  function track(view: IderSessionView, server: IderServer, user: AuthenticatedUser, address: string, releaseMedia: () => Promise<unknown>): void {
    const { username } = user;
    let endedBy: RequestActor = { user: username, address };
    const session: LiveSession = {
      id: view.id,
      mode: 'ider',
      deviceId: view.deviceId,
      user: username,
      userId: user.id,
      // Served by the gateway, not viewed through a sign-in: a sign-out leaves it running; a password
      // change, the user's deletion or loss of remote:connect ends it (revocation.ts).
      tokenId: '',
      startedAt: view.startedAt,
      media: { cd: view.cd, floppy: view.floppy },
      get bytesToDevice() {
        return server.bytesToDevice;
      },
      get bytesFromDevice() {
        return server.bytesFromDevice;
      },
      end(reason, by) {
        if (by) endedBy = by;
        server.end(END_OF[reason]);
      },
    };
    registry.open(session);
    live.set(view.id, { view, server });
    events.publish('RemoteConsoleSessionOpened', { mode: 'ider' });
    logger.info('IDE-R session started', { sessionId: view.id, user: username, deviceId: view.deviceId, cd: view.cd, floppy: view.floppy });
    void audit?.record({ by: { user: username, address }, action: 'remote.ider.start', target: view.deviceId, detail: { sessionId: view.id, cd: view.cd, floppy: view.floppy } });
    const progress = (ended?: string) => ({ sessionId: view.id, deviceId: view.deviceId, bytesServed: server.bytesServed, bytesToDevice: server.bytesToDevice, commands: server.commands, ...(ended ? { ended } : {}) });
    let lastReported = -1;
    const ticker = setInterval(() => {
      if (server.bytesToDevice === lastReported) return;
      lastReported = server.bytesToDevice;
      events.publish('IderSessionProgress', progress());
    }, ider.progressIntervalMs);
    ticker.unref();
    void server.done.then(async (end) => {
      clearInterval(ticker);
      registry.closed(session);
      live.delete(view.id);
      await releaseMedia();
      const durationSeconds = (Date.now() - Date.parse(view.startedAt)) / 1000;
      const { bytesToDevice, bytesFromDevice, bytesServed, commands } = server;
      events.publish('IderSessionProgress', progress(end.reason));
      events.publish('RemoteConsoleSessionClosed', { mode: 'ider', bytesToDevice, bytesFromDevice, durationSeconds });
      logger.info('IDE-R session ended', { sessionId: view.id, user: username, deviceId: view.deviceId, reason: end.reason, ...(end.detail ? { detail: end.detail } : {}), durationSeconds, bytesServed, commands });
      await audit?.record({ by: endedBy, action: 'remote.ider.end', target: view.deviceId, detail: { sessionId: view.id, reason: end.reason, durationSeconds, bytesServed, bytesToDevice, commands } });
    });
  }

  return {
    open,
    /** The open IDE-R session of a device, if any. */
    forDevice: (deviceId: string) => [...live.values()].find((s) => s.view.deviceId === deviceId && !s.server.ended)?.view,
    /** Whether `deviceId` has an open session serving `kind` (what a boot from it needs). */
    serving: (deviceId: string, kind: ImageKind) => [...live.values()].some((s) => s.view.deviceId === deviceId && !s.server.ended && s.view[kind] !== null),
  };
}

export type IderService = ReturnType<typeof createIderService>;
