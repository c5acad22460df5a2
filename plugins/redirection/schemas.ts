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

const SESSION_SUMMARY_PROPERTIES = { id: Type.String(), mode: SESSION_MODE, user: Type.String(), startedAt: DateTime() };

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

export const SESSION_REQUEST_SCHEMA = Type.Object({ mode: StringEnum(['kvm', 'sol', 'ider'], { description: '`ider` is refused (422) until IDE redirection is offered' }) }, { additionalProperties: false });

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
