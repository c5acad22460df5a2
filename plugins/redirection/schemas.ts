/**
 * The redirection routes' requests and answers (added to the OpenAPI document): TypeBox schemas,
 * their types derived. TypeBox and core/validation/schema-types only, so that the console can
 * import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, StringEnum } from '../../core/validation/schema-types.js';

export const OPT_IN_STATES = ['not-started', 'requested', 'displayed', 'received', 'in-session'] as const;
export const USER_CONSENT = ['none', 'kvm', 'all'] as const;

/** The modes a session is opened in. */
export const SESSION_MODES = ['kvm', 'sol'] as const;
const SESSION_MODE = StringEnum(SESSION_MODES);
/** The modes of a live session: the relayed ones, and IDE-R (served by the gateway). */
const LIVE_MODE = StringEnum([...SESSION_MODES, 'ider']);

const SESSION_SUMMARY_PROPERTIES = { id: Type.String(), mode: LIVE_MODE, user: Type.String(), startedAt: DateTime() };

export const REDIRECTION_STATE_SCHEMA = Type.Object({
  deviceId: Type.String(),
  features: Type.Object(
    { kvm: Type.Boolean(), sol: Type.Boolean(), ider: Type.Boolean() },
    { description: 'Enabled and reachable (a feature whose redirection listener is off reads false)' },
  ),
  userConsent: StringEnum(USER_CONSENT, { description: 'What needs the consent of the person at the machine (IPS_OptInService.OptInRequired)' }),
  optInState: StringEnum(OPT_IN_STATES),
  sessions: Type.Array(Type.Object(SESSION_SUMMARY_PROPERTIES), { description: 'Sessions open through this gateway' }),
});

/** What `GET /api/redirection/{deviceId}` and `PUT .../features` answer. */
export type RedirectionState = Static<typeof REDIRECTION_STATE_SCHEMA>;

export const FEATURES_REQUEST_SCHEMA = Type.Object(
  { kvm: Type.Optional(Type.Boolean()), sol: Type.Optional(Type.Boolean()), ider: Type.Optional(Type.Boolean()), userConsent: Type.Optional(StringEnum(USER_CONSENT)) },
  { additionalProperties: false, minProperties: 1 },
);

/** What `PUT /api/redirection/{deviceId}/features` takes. */
export type FeatureRequest = Static<typeof FEATURES_REQUEST_SCHEMA>;

export const CONSENT_CODE_SCHEMA = Type.Object(
  { code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code shown on the device screen (leading zeros count)' }) },
  { additionalProperties: false },
);

export const SESSION_REQUEST_SCHEMA = Type.Object(
  {
    mode: StringEnum(['kvm', 'sol', 'ider'], { description: '`kvm` and `sol` return a WebSocket ticket; `ider` opens an IDE-R session the gateway serves itself' }),
    cd: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IDE-R: the image id served as the CD-ROM' })),
    floppy: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IDE-R: the image id served as the floppy' })),
  },
  // Images go only with an IDE-R session.
  { additionalProperties: false, if: { anyOf: [{ required: ['cd'] }, { required: ['floppy'] }] }, then: { properties: { mode: { const: 'ider' } } } },
);

export const IDER_SESSION_SCHEMA = Type.Object({
  id: Type.String(),
  mode: Type.Literal('ider'),
  deviceId: Type.String(),
  cd: Type.Union([Type.String(), Type.Null()], { description: 'Image id served as the CD-ROM' }),
  floppy: Type.Union([Type.String(), Type.Null()], { description: 'Image id served as the floppy' }),
  startedAt: DateTime(),
});

/** What `POST /api/redirection/{deviceId}/sessions` answers for `ider`. */
export type IderSession = Static<typeof IDER_SESSION_SCHEMA>;

/** `IderSessionProgress` on the hub: an open IDE-R session's progress, about once a second while it serves (and once at its end). */
export const IDER_PROGRESS_SCHEMA = Type.Object({
  sessionId: Type.String(),
  deviceId: Type.String(),
  bytesServed: Type.Integer({ description: 'Image bytes served so far' }),
  bytesToDevice: Type.Integer({ description: 'Every byte sent to the device (messages and data)' }),
  commands: Type.Integer({ description: 'ATAPI commands the device sent' }),
  ended: Type.Optional(Type.String({ description: 'Set on the last event of a session: why it ended' })),
});

export type IderSessionProgressEvent = Static<typeof IDER_PROGRESS_SCHEMA>;

export const SESSION_TICKET_SCHEMA = Type.Object({
  id: Type.String(),
  mode: SESSION_MODE,
  deviceId: Type.String(),
  url: Type.String({ description: 'WebSocket path relative to the gateway, holding a single-use ticket' }),
  expiresAt: DateTime(),
});

/** What `POST /api/redirection/{deviceId}/sessions` answers. */
export type SessionTicket = Static<typeof SESSION_TICKET_SCHEMA>;

const SESSION_INFO_SCHEMA = Type.Object({ ...SESSION_SUMMARY_PROPERTIES, deviceId: Type.String(), bytesToDevice: Type.Integer(), bytesFromDevice: Type.Integer() });

export const SESSION_LIST_SCHEMA = Type.Array(SESSION_INFO_SCHEMA);

/** One open session, as `GET /api/redirection/sessions` lists it. */
export type SessionInfo = Static<typeof SESSION_INFO_SCHEMA>;
