/** JSON Schemas of the redirection routes (added to the OpenAPI document). */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../core/validation/schema-types.js';

export const OPT_IN_STATES = ['not-started', 'requested', 'displayed', 'received', 'in-session'] as const;
export const USER_CONSENT = ['none', 'kvm', 'all'] as const;

const SESSION_SUMMARY = {
  type: 'object',
  required: ['id', 'mode', 'user', 'startedAt'],
  properties: { id: { type: 'string' }, mode: { enum: ['kvm', 'sol', 'ider'] }, user: { type: 'string' }, startedAt: { type: 'string', format: 'date-time' } },
};

export const REDIRECTION_STATE_SCHEMA = {
  type: 'object',
  required: ['deviceId', 'features', 'userConsent', 'optInState', 'sessions'],
  properties: {
    deviceId: { type: 'string' },
    features: {
      type: 'object',
      required: ['kvm', 'sol', 'ider'],
      properties: { kvm: { type: 'boolean' }, sol: { type: 'boolean' }, ider: { type: 'boolean' } },
      description: 'Enabled and reachable (a feature whose redirection listener is off reads false)',
    },
    userConsent: { enum: USER_CONSENT, description: 'What needs the consent of the person at the machine (IPS_OptInService.OptInRequired)' },
    optInState: { enum: OPT_IN_STATES },
    sessions: { type: 'array', items: SESSION_SUMMARY, description: 'Sessions open through this gateway' },
  },
};

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
  startedAt: Type.String({ format: 'date-time' }),
});

export const SESSION_TICKET_SCHEMA = {
  type: 'object',
  required: ['id', 'mode', 'deviceId', 'url', 'expiresAt'],
  properties: {
    id: { type: 'string' },
    mode: { enum: ['kvm', 'sol'] },
    deviceId: { type: 'string' },
    url: { type: 'string', description: 'WebSocket path relative to the gateway, holding a single-use ticket' },
    expiresAt: { type: 'string', format: 'date-time' },
  },
};

export const SESSION_LIST_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'mode', 'deviceId', 'user', 'startedAt', 'bytesToDevice', 'bytesFromDevice'],
    properties: { ...SESSION_SUMMARY.properties, deviceId: { type: 'string' }, bytesToDevice: { type: 'integer' }, bytesFromDevice: { type: 'integer' } },
  },
};
