/**
 * Every shape the activation plugin takes or answers, one TypeBox schema each; the types are
 * `Static<>` of them (the console imports these types). Passwords are write-only: they appear in the
 * request schemas and in no response schema.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../core/validation/schema-types.js';

const DATE_TIME = Type.String({ format: 'date-time' });
const NAME = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$', description: 'What `rpc activate -profile NAME` names' });
/** AMT's rule for its passwords (8 to 32 characters, upper, lower, digit and one other), without XML markup characters. */
const AMT_PASSWORD_RULE = {
  minLength: 8,
  maxLength: 32,
  pattern: '^(?=.*[a-z])(?=.*[A-Z])(?=.*[0-9])(?=.*[^A-Za-z0-9])[^<>&\\s]{8,32}$',
  'x-pattern-message': 'must be 8 to 32 characters with an upper-case and a lower-case letter, a digit and a special character (none of < > & or white space)',
  writeOnly: true,
};

export const MODES = ['ccm', 'acm'] as const;
export const CONSENTS = ['none', 'kvm', 'all'] as const;

/** Request bodies get no defaults filled in: a field left out takes the default the description names (profile-store.ts applies them). */
const FEATURES = Type.Object(
  { kvm: Type.Optional(Type.Boolean({ default: true })), sol: Type.Optional(Type.Boolean({ default: true })), ider: Type.Optional(Type.Boolean({ default: true })) },
  { additionalProperties: false, description: 'Redirection features turned on (true, the default) or off' },
);

const PROFILE_FIELDS = {
  mode: StringEnum(MODES, { description: '`ccm`: client control mode (Setup); `acm`: admin control mode (AdminSetup with a provisioning certificate)' }),
  password: Type.Optional(
    StringEnum(['generate', 'fixed'], {
      default: 'generate',
      description: '`generate` (default): every device gets its own random AMT password; `fixed`: every device gets `fixedPassword`, which one device\'s exchange reveals for all',
    }),
  ),
  fixedPassword: Type.Optional(Type.String(AMT_PASSWORD_RULE)),
  mebxPassword: Type.Optional(Type.String({ ...AMT_PASSWORD_RULE, description: 'The MEBx (BIOS extension) password set in admin control mode; required with `acm`' })),
  userConsent: Type.Optional(StringEnum(CONSENTS, { default: 'all', description: 'What needs the user at the machine to consent; client control mode allows only `all` (the default)' })),
  features: Type.Optional(FEATURES),
  connection: Type.Optional(StringEnum(['cira', 'lan'], { default: 'lan', description: '`cira`: the device is set up to dial in to this gateway; `lan` (default): reached at its address' })),
};

export const PROFILE_INPUT_SCHEMA = Type.Object({ name: NAME, ...PROFILE_FIELDS }, { additionalProperties: false });
/** PUT: the profile as a whole; a password left out keeps the one stored. */
export const PROFILE_UPDATE_SCHEMA = Type.Object(PROFILE_FIELDS, { additionalProperties: false });

export const PROFILE_SCHEMA = Type.Object({
  name: Type.String(),
  mode: StringEnum(MODES),
  password: StringEnum(['generate', 'fixed']),
  hasFixedPassword: Type.Boolean({ description: 'A fixed password is stored (never returned)' }),
  hasMebxPassword: Type.Boolean({ description: 'A MEBx password is stored (never returned)' }),
  userConsent: StringEnum(CONSENTS),
  features: Type.Object({ kvm: Type.Boolean(), sol: Type.Boolean(), ider: Type.Boolean() }),
  connection: StringEnum(['cira', 'lan']),
  warnings: Type.Array(Type.String(), { description: 'What an operator should know, e.g. that a fixed password is shared by every device' }),
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
});
export type ActivationProfile = Static<typeof PROFILE_SCHEMA>;
export type ProfileInput = Static<typeof PROFILE_INPUT_SCHEMA>;
export type ProfileUpdate = Static<typeof PROFILE_UPDATE_SCHEMA>;

export const DOMAIN_INPUT_SCHEMA = Type.Object(
  {
    suffix: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$', description: 'The DNS suffix devices report (matched without case)' }),
    certificate: Type.String({ minLength: 16, maxLength: 65536, pattern: '^[A-Za-z0-9+/\\s]+={0,2}\\s*$', writeOnly: true, description: 'The provisioning certificate with its chain and key: a PKCS#12 (PFX) file, base64' }),
    certificatePassword: Type.String({ maxLength: 256, writeOnly: true, description: 'The PFX password' }),
  },
  { additionalProperties: false },
);

export const DOMAIN_SCHEMA = Type.Object({
  id: Type.String(),
  suffix: Type.String(),
  subject: Type.String({ description: 'The leaf certificate\'s subject' }),
  issuer: Type.String(),
  rootSha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the chain\'s root (DER): one of the hashes the firmware must trust' }),
  expiresAt: DATE_TIME,
  expiresSoon: Type.Boolean({ description: 'The leaf expires within `certificateWarningDays` (default 30) or has expired' }),
  createdAt: DATE_TIME,
});
export type ProvisioningDomain = Static<typeof DOMAIN_SCHEMA>;
export type DomainInput = Static<typeof DOMAIN_INPUT_SCHEMA>;

export const ACTIONS = ['activate', 'deactivate', 'maintenance'] as const;
export const OUTCOMES = ['running', 'waiting', 'succeeded', 'failed'] as const;

export const RECORD_STEP_SCHEMA = Type.Object({
  step: Type.String(),
  at: DATE_TIME,
  /** WS-Management requests the step made. */
  calls: Type.Optional(Type.Integer()),
  ms: Type.Optional(Type.Integer()),
});

export const RECORD_SCHEMA = Type.Object({
  id: Type.String(),
  uuid: Type.String(),
  hostname: Type.String(),
  fqdn: Type.String({ description: 'The DNS suffix the firmware reported' }),
  profile: Type.Union([Type.String(), Type.Null()]),
  mode: Type.Union([StringEnum(MODES), Type.Null()]),
  action: StringEnum(ACTIONS),
  task: Type.Optional(Type.String({ description: 'The maintenance task' })),
  outcome: StringEnum(OUTCOMES, { description: '`waiting`: for an operator\'s approval (POST /api/activation/approvals/{uuid})' }),
  step: Type.String({ description: 'The step running now, or the last one' }),
  error: Type.Optional(Type.Object({ code: Type.String(), detail: Type.String() })),
  remoteAddress: Type.String({ description: 'Where the agent connected from' }),
  firmwareVersion: Type.String(),
  calls: Type.Integer({ description: 'WS-Management requests relayed to the firmware' }),
  steps: Type.Array(RECORD_STEP_SCHEMA),
  startedAt: DATE_TIME,
  finishedAt: Type.Optional(DATE_TIME),
  deviceId: Type.Optional(Type.String()),
});
export type ActivationRecord = Static<typeof RECORD_SCHEMA>;

export const RECORD_QUERY_SCHEMA = Type.Object(
  {
    offset: Type.Integer({ minimum: 0, default: 0 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    uuid: Type.Optional(Type.String({ maxLength: 36 })),
    outcome: Type.Optional(StringEnum(OUTCOMES)),
  },
  { additionalProperties: false },
);

export const APPROVAL_SCHEMA = Type.Object({
  uuid: Type.String(),
  deviceId: Type.String({ description: 'The managed device with this UUID' }),
  recordId: Type.Union([Type.String(), Type.Null()], { description: 'The activation waiting for it, if one is' }),
  remoteAddress: Type.Union([Type.String(), Type.Null()]),
  requestedAt: Type.Union([DATE_TIME, Type.Null()]),
  approvedBy: Type.Union([Type.String(), Type.Null()]),
  approvedAt: Type.Union([DATE_TIME, Type.Null()]),
  expiresAt: Type.Union([DATE_TIME, Type.Null()]),
});
export type ActivationApproval = Static<typeof APPROVAL_SCHEMA>;

/** `ActivationProgress` on the hub: one step of one action. */
export const PROGRESS_SCHEMA = Type.Object({
  recordId: Type.String(),
  uuid: Type.String(),
  action: StringEnum(ACTIONS),
  step: Type.String(),
  outcome: StringEnum(OUTCOMES),
  calls: Type.Integer(),
  error: Type.Optional(Type.Object({ code: Type.String(), detail: Type.String() })),
  deviceId: Type.Optional(Type.String()),
});
export type ActivationProgressEvent = Static<typeof PROGRESS_SCHEMA>;

export const CODE_REQUEST_SCHEMA = Type.Object({ uuid: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }) }, { additionalProperties: false });
export const CODE_SCHEMA = Type.Object({
  uuid: Type.String(),
  code: Type.String({ description: 'Type it as the AMT password: `rpc deactivate --password CODE`, `rpc maintenance -password CODE ...`; works once' }),
  expiresAt: DATE_TIME,
});
export type ActionCode = Static<typeof CODE_SCHEMA>;
