/**
 * `rpc activate -profile NAME`: checks the request, then two passes of the device gate through the
 * agent. The first signs in with the firmware's local system account the agent read: it reads the
 * Digest realm (and in admin control mode the firmware's nonce), seals the new AMT password as the
 * device's own credential, and activates (`Setup`, or the chain and `AdminSetup`). The second signs
 * in as `admin` with that password and applies the profile: MEBx password, features and consent, CIRA.
 * No wait between them: the firmware answers the next request as soon as `Setup` has answered.
 */
import { randomBytes } from 'node:crypto';
import { isHttpError } from '../../../core/plugin-api.js';
import { randomPassword } from '../../../core/util/random-password.js';
import type { TaskCredential } from '../../../workers/tasks/task-types.js';
import type { AlongCredential } from 'amt-gateway/devices';
import type { Device } from 'amt-gateway/devices';
import { ActivationErrors } from '../errors.js';
import type { FirmwareCalls } from '../device/firmware-calls.js';
import { applyFeatures } from '../device/steps/feature-steps.js';
import { setupCira } from '../device/steps/cira-steps.js';
import { ADMIN_USER, addCertificateChain, adminPasswordHash, adminSetup, clientSetup, readGeneralSettings, readHostBasedSetup, setMebxPassword, type GeneralFacts } from '../device/steps/setup-steps.js';
import { chainForFirmware, rootTrusted, signNonces, type ProvisioningCertificate } from '../domains/provisioning-certificate.js';
import type { ActivationProfile } from '../schemas.js';
import type { DeviceFacts } from '../wire/agent-request.js';
import { ciraSetupFor } from './cira-target.js';
import type { FlowContext, FlowParts, StatusMessage } from './flow-parts.js';
import { provenCredential } from './password-proof.js';

/** AMT 7.0 to 11.6 need build 3000 or later to be configured remotely; older than 7 not at all (as RPS checks). */
const VERIFIED_VERSIONS = new Set([7.0, 7.1, 8.0, 8.1, 9.0, 9.1, 9.5, 10.0, 11.0, 11.5, 11.6]);

function checkFirmware(facts: DeviceFacts): void {
  const version = Number.parseFloat(facts.version);
  if (version < 7 || (VERIFIED_VERSIONS.has(version) && Number.parseInt(facts.build, 10) < 3000)) throw ActivationErrors.firmwareTooOld(`${facts.version} build ${facts.build || '?'}`);
}

const modeName = (profile: ActivationProfile) => (profile.mode === 'acm' ? 'admin control mode' : 'client control mode');

/** Runs the activation; resolves with the status rpc-go prints. */
export async function activate(parts: FlowParts, ctx: FlowContext, request: { profile: string; facts: DeviceFacts }): Promise<StatusMessage> {
  const { facts } = request;
  const { tracker } = ctx;
  tracker.step('check');
  const profile = parts.profiles.require(request.profile);
  tracker.record.profile = profile.name;
  tracker.record.mode = profile.mode;
  if (facts.tlsEnforced) throw ActivationErrors.tlsEnforced();
  checkFirmware(facts);
  if (profile.connection === 'cira') requireCira(parts);
  const certificate = profile.mode === 'acm' ? await provisioningCertificateFor(parts, facts) : undefined;
  if (facts.currentMode === 0) return fresh(parts, ctx, profile, facts, certificate);
  if ((facts.currentMode === 1) !== (profile.mode === 'ccm')) {
    throw ActivationErrors.wrongState(`the device is in ${facts.currentMode === 1 ? 'client' : 'admin'} control mode and the profile asks for ${modeName(profile)}: deactivate it first`);
  }
  return reconfigure(parts, ctx, profile, facts);
}

function requireCira(parts: FlowParts): void {
  if (!parts.cira?.dialIn()) throw ActivationErrors.ciraUnavailable();
}

async function provisioningCertificateFor(parts: FlowParts, facts: DeviceFacts): Promise<ProvisioningCertificate> {
  const domain = parts.domains.forSuffix(facts.dnsSuffix);
  if (!domain) throw ActivationErrors.noDomain(facts.dnsSuffix);
  const certificate = await parts.domains.certificate(domain.id);
  // Checked before anything reaches the device: firmware would refuse the chain, after the calls.
  if (!rootTrusted(certificate, facts.certHashes)) throw ActivationErrors.rootNotTrusted(domain.suffix);
  return certificate;
}

/** A UUID the gateway already manages: an operator approves before this device replaces it. */
async function approval(parts: FlowParts, ctx: FlowContext, existing: Readonly<Device>): Promise<void> {
  const { tracker, agent } = ctx;
  await tracker.waiting('approval');
  const request = { deviceId: existing.id, recordId: tracker.record.id, remoteAddress: agent.session.remoteAddress, requestedAt: new Date().toISOString() };
  const approved = await agent.session.whileWaiting(() => parts.approvals.await(agent.uuid, request, parts.config.approvalWaitSeconds * 1000, ctx.signal));
  if (!approved) throw ActivationErrors.approvalRequired(agent.uuid, existing.id);
  tracker.resumed();
}

async function fresh(parts: FlowParts, ctx: FlowContext, profile: ActivationProfile, facts: DeviceFacts, certificate: ProvisioningCertificate | undefined): Promise<StatusMessage> {
  const { agent, tracker } = ctx;
  const existing = parts.devices.findByUuid(agent.uuid);
  if (existing) await approval(parts, ctx, existing);
  if (!facts.account) throw ActivationErrors.badMessage('no local system account in the payload (rpc-go reads it from the firmware)');
  // An unprovisioned device holds no secret of ours: the agent is its way in, and what goes along it is what we make for it now.
  agent.proven = true;
  const local: TaskCredential = { id: `activation-local:${agent.session.id}`, username: facts.account.username, password: facts.account.password };
  const password = profile.password === 'fixed' ? parts.profiles.secretsOf(profile.name).fixedPassword! : randomPassword(16);
  const admin = await activateWith(parts, ctx, profile, local, password, certificate);
  const device = await registerDevice(parts, ctx, profile, facts, admin.general, admin.credentialId);
  const status = await configure(parts, ctx, profile, { id: admin.credentialId, username: ADMIN_USER, password }, true);
  await tracker.succeed(device.id);
  return { ...status, Status: profile.mode === 'acm' ? 'Admin control mode.' : 'Client control mode.' };
}

/** The first pass: read, seal the password, activate. The password's credential is bound before `Setup` goes out. */
async function activateWith(parts: FlowParts, ctx: FlowContext, profile: ActivationProfile, local: TaskCredential, password: string, certificate: ProvisioningCertificate | undefined) {
  const { agent, tracker } = ctx;
  tracker.step('read');
  let credentialId: string | null = null;
  let setupSent = false;
  try {
    const result = await parts.link.run(agent, local, 'activate', async (calls) => {
      const general = await readGeneralSettings(calls);
      const setup = profile.mode === 'acm' ? await readHostBasedSetup(calls) : null;
      if (setup && !setup.allowedModes.includes(2)) throw ActivationErrors.modeNotAllowed('admin control mode');
      // Sealed and stored before it is sent: a gateway that stops now still knows the device's password.
      credentialId = (await parts.vault.bind(agent.uuid, { username: ADMIN_USER, password })).id;
      tracker.step('setup');
      setupSent = true;
      const hash = adminPasswordHash(general.realm, password);
      if (!certificate) await clientSetup(calls, hash);
      else await sendAdminSetup(calls, certificate, hash, setup!.firmwareNonce);
      return general;
    });
    return { general: result, credentialId: credentialId! };
  } catch (error) {
    if (!setupSent) throw error;
    // The firmware said no: nothing changed, the password stored for it goes.
    if (isHttpError(error) && error.code === 'GW_ERR_ACTIVATION_FIRMWARE_REFUSED') {
      await parts.vault.unbind(agent.uuid);
      throw error;
    }
    // No answer (AdminSetup may end the firmware's session when it succeeds): ask the firmware which mode it is in now.
    const general = await confirmActivated(parts, ctx, profile, { id: credentialId!, username: ADMIN_USER, password }, error);
    return { general, credentialId: credentialId! };
  }
}

async function sendAdminSetup(calls: FirmwareCalls, certificate: ProvisioningCertificate, hash: string, firmwareNonce: Buffer): Promise<void> {
  await addCertificateChain(calls, chainForFirmware(certificate));
  const ourNonce = randomBytes(20);
  await adminSetup(calls, { passwordHash: hash, ourNonce, signature: signNonces(certificate, firmwareNonce, ourNonce) });
}

async function confirmActivated(parts: FlowParts, ctx: FlowContext, profile: ActivationProfile, admin: AlongCredential, cause: unknown): Promise<GeneralFacts> {
  ctx.tracker.step('confirm');
  try {
    const result = await parts.link.run(ctx.agent, admin, 'confirm', async (calls) => ({ setup: await readHostBasedSetup(calls), general: await readGeneralSettings(calls) }));
    if (result.setup.currentMode === (profile.mode === 'acm' ? 2 : 1)) return result.general;
  } catch {
    // The first problem tells more than this one.
  }
  throw cause;
}

/** The device in the list: found by UUID or created, provisioned, its own credential first. */
async function registerDevice(parts: FlowParts, ctx: FlowContext, profile: ActivationProfile, facts: DeviceFacts, general: GeneralFacts, credentialId: string): Promise<Readonly<Device>> {
  const address = ctx.agent.session.remoteAddress;
  const { device } = await parts.presence.adopt({ uuid: ctx.agent.uuid, ipAddress: address });
  const updated = await parts.devices.update(device.id, {
    ...(profile.connection === 'lan' ? { ipAddress: address } : {}),
    hostname: general.hostname || facts.hostname || device.hostname,
    domain: general.domain || facts.dnsSuffix || device.domain || null,
    firmwareVersion: facts.version,
    provisioningState: 'POST',
    provisioningMode: profile.mode === 'acm' ? 'ACM' : 'CCM',
    credentialId,
    authStatus: 'ok',
  });
  ctx.tracker.record.deviceId = device.id;
  return updated ?? device;
}

/** The second pass, as `admin`: the profile's settings. */
async function configure(parts: FlowParts, ctx: FlowContext, profile: ActivationProfile, admin: AlongCredential, activatedNow: boolean): Promise<StatusMessage> {
  const { agent, tracker } = ctx;
  tracker.step(profile.mode === 'acm' && activatedNow ? 'mebx' : 'features');
  const cira = profile.connection === 'cira' ? await ciraSetupFor(parts, agent.uuid) : null;
  await parts.link.run(agent, admin, 'configure', async (calls) => {
    if (profile.mode === 'acm' && activatedNow) {
      const { mebxPassword } = parts.profiles.secretsOf(profile.name);
      if (mebxPassword) await setMebxPassword(calls, mebxPassword);
      tracker.step('features');
    }
    await applyFeatures(calls, { ...profile.features, userConsent: profile.userConsent }, profile.mode === 'acm');
    if (cira) {
      tracker.step('cira');
      await setupCira(calls, cira);
    }
  });
  const mode = profile.mode === 'acm' ? 'ACM' : 'CCM';
  return {
    Status: '',
    Network: 'Not Configured',
    CIRAConnection: cira ? 'Configured' : 'Not Configured',
    TLSConfiguration: 'Not Configured',
    Components: {
      Activation: { Result: 'Success', Mode: mode },
      CIRAConnection: cira ? { Result: 'Success', Details: `Dials ${cira.server.address}:${cira.server.port}` } : { Result: 'NotApplicable' },
    },
  };
}

/** A device activated already in the profile's mode, whose password the agent knows: the profile's settings again. */
async function reconfigure(parts: FlowParts, ctx: FlowContext, profile: ActivationProfile, facts: DeviceFacts): Promise<StatusMessage> {
  const admin = await provenCredential(parts, ctx, facts.account?.password ?? null);
  ctx.agent.proven = true;
  const status = await configure(parts, ctx, profile, admin, false);
  const device = parts.devices.findByUuid(ctx.agent.uuid);
  await ctx.tracker.succeed(device?.id);
  return { ...status, Status: profile.mode === 'acm' ? 'already enabled in admin mode.' : 'already enabled in client mode.' };
}
