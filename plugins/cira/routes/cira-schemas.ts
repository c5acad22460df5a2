/**
 * The cira plugin's shapes: MPS accounts, UUID bindings and live tunnels as the routes answer them
 * and the stores keep them, and the routes' requests: TypeBox schemas, their types derived (added to
 * the OpenAPI document). TypeBox and core/validation/schema-types only, so that the console can
 * import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, NullableEnum, StringEnum } from '../../../core/validation/schema-types.js';

const UUID = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
/** The UUIDs an account may serve; at most 10,000 (an account per device is the safest: one each). */
const uuidList = (description: string) => Type.Array(UUID, { maxItems: 10_000, description });
const UUID_LIST = uuidList('Device UUIDs the account may bring; a tunnel with another UUID is refused');
/**
 * How a tunnel's claim to be the device was established: `bound`, the UUID was first known through
 * this account's tunnel (no other path knew the device); `proven`, the tunnel presented, inside a
 * 16993 channel, the TLS certificate pinned for the device on the LAN; `accepted`, an operator said so;
 * `provisioned`, the gateway generated the account for this UUID and wrote it into the device itself
 * (activation), so only that device holds its password.
 */
export const TUNNEL_TRUSTS = ['bound', 'proven', 'accepted', 'provisioned'] as const;
export type TunnelTrust = (typeof TUNNEL_TRUSTS)[number];

const IDENTITY = StringEnum([...TUNNEL_TRUSTS, 'unverified'], {
  type: 'string',
  description:
    '`bound`: the UUID was first known through this MPS account (a reconnect under it is the same device); `proven`: the tunnel presented the TLS certificate pinned for the device on the LAN; ' +
    '`accepted`: an operator accepted it; `provisioned`: the gateway generated the account for this UUID when it activated the device; `unverified`: the device is known from the LAN and the tunnel has not proven it is that device: nothing goes through it until it does or an operator accepts it',
});

export const MPS_ACCOUNT_SCHEMA = Type.Object({
  id: Type.String(),
  username: Type.String(),
  createdAt: DateTime(),
  uuids: Type.Optional(uuidList('Device UUIDs the account may bring, lower case (absent: any)')),
});

export type MpsAccount = Static<typeof MPS_ACCOUNT_SCHEMA>;

export const UPDATE_MPS_ACCOUNT_SCHEMA = Type.Object(
  { uuids: Type.Union([UUID_LIST, Type.Null()], { description: 'The UUIDs the account may bring; null: any' }) },
  { additionalProperties: false },
);

export const UUID_BINDING_SCHEMA = Type.Object({
  uuid: Type.String(),
  accountId: Type.String({ description: 'The MPS account the UUID is bound to: a tunnel claiming the UUID under another is refused' }),
  username: Type.String({ description: "The account's user name when bound" }),
  boundAt: DateTime(),
  trust: NullableEnum(TUNNEL_TRUSTS, { description: "How the account's tunnels were established to be the device (null: not yet)" }),
  trustedAt: Nullable(DateTime()),
});

export type UuidBinding = Static<typeof UUID_BINDING_SCHEMA>;

export const REBIND_SCHEMA = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64, description: 'The MPS account the UUID is bound to from now on' }) }, { additionalProperties: false });

export const CREATE_MPS_ACCOUNT_SCHEMA = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7e]+$', description: 'As provisioned on the devices (AMT allows at most 64 bytes)' }),
    password: Type.String({ minLength: 8, maxLength: 256, writeOnly: true, description: 'Write-only; sealed at rest' }),
    uuids: Type.Optional(UUID_LIST),
  },
  { additionalProperties: false },
);

/** A live tunnel, as `GET /api/cira/connections` lists it. */
export const CIRA_CONNECTION_SCHEMA = Type.Object({
  deviceId: Type.String(),
  uuid: Type.String({ description: 'From the PROTOCOLVERSION message, lower-case canonical text' }),
  remoteAddress: Type.String(),
  remotePort: Type.Integer(),
  username: Type.String({ description: 'The MPS account the device signed in with' }),
  connectedAt: DateTime(),
  lastKeepAliveAt: Nullable(DateTime()),
  forwardedPorts: Type.Array(Type.Integer(), { description: 'Ports the device registered with tcpip-forward' }),
  openChannels: Type.Integer(),
  identity: IDENTITY,
  verified: Type.Boolean({ description: 'false while `identity` is `unverified`: no credential, Digest response or operation goes through the tunnel' }),
});

export type CiraConnection = Static<typeof CIRA_CONNECTION_SCHEMA>;
/** How a tunnel is known to be the device: a {@link TunnelTrust}, or `unverified`. */
export type TunnelIdentity = CiraConnection['identity'];

export const CIRA_CERTIFICATE_SCHEMA = Type.Object({
  pem: Type.String({ description: 'The CIRA server certificate (PEM)' }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the certificate (DER), lower-case hex' }),
});

export type CiraCertificate = Static<typeof CIRA_CERTIFICATE_SCHEMA>;

export const PAGING_QUERY = Type.Object({
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Items to skip' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Items to return (at most 1000); without it, all' })),
});
