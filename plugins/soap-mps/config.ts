/** The `options` of the soap-mps plugin, defaults applied (see README.md); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { Section, StringEnum } from '../../core/validation/schema-types.js';
import { DEFAULT_ALLOWED_NETWORKS } from './delivery-policy.js';

const int = (minimum: number, maximum: number, defaultValue: number, description: string) => Type.Integer({ minimum, maximum, default: defaultValue, description });
const ADDRESSES = Type.String({ pattern: '^[0-9A-Fa-f:.]+(/\\d{1,3})?$' });

/** JSON Schema of the plugin options; the kernel validates them and fills in the defaults. */
export const CONFIG_SCHEMA = Type.Object(
  {
    /** TCP port of the SOAP listener; 0 picks a free port (tests). */
    port: int(0, 65535, 7793, 'SOAP listener port (AMTGW_SOAP_PORT)'),
    /** Bind address; default: the main listener's address. */
    host: Type.Optional(Type.String({ minLength: 1, description: "SOAP listener address; default: the main listener's address (AMTGW_HOST)" })),
    /** `{nsBase}/MPSInterface/2010/11` is the service namespace. */
    nsBase: Type.String({
      // Substituted into the WSDL and every message: an http(s) URI with no characters that need XML escaping.
      pattern: '^https?://[A-Za-z0-9._~:/?#\\[\\]@!$()*+,;=%-]+[^/]$',
      maxLength: 200,
      default: 'http://intel.com/wbem',
      description: 'Namespace base: the service namespace is {nsBase}/MPSInterface/2010/11',
    }),
    /** `basic`: HTTP Basic against gateway users with `mps:read`; `none`: by client address. */
    auth: StringEnum(['basic', 'none'], { default: 'basic', description: 'basic: HTTP Basic with mps:read; none: client address in allowedClients' }),
    /** CIDRs allowed when `auth` is `none`. */
    allowedClients: Type.Array(ADDRESSES, { maxItems: 256, default: ['127.0.0.0/8', '::1/128'], description: 'CIDRs (or single addresses) allowed when auth is none' }),
    maxBodyBytes: int(1024, 16 * 1024 * 1024, 65536, 'Largest accepted SOAP request body'),
    enumeration: Section({
      ttlSeconds: int(1, 86400, 300, 'Lifetime of an enumeration context'),
      maxContexts: int(1, 100000, 100, 'Open enumeration contexts at most'),
      maxContextsPerCaller: int(1, 100000, 10, 'Open enumeration contexts of one caller (user, or client address without authentication) at most'),
      defaultPageSize: int(1, 100000, 100, 'Pull page size when MaxElements is absent'),
      maxPageSize: int(1, 100000, 1000, 'Larger MaxElements values are capped to this'),
    }),
    subscriptions: Section({
      ttlSeconds: int(1, 31 * 86400, 86400, 'Lifetime of a subscription (renewed by subscribing again)'),
      maxSubscriptions: int(1, 100000, 100, 'Live subscriptions at most'),
      maxPerCaller: int(1, 100000, 10, 'Live subscriptions of one caller (user, or client address without authentication) at most'),
    }),
    delivery: Section({
      timeoutMs: int(100, 120000, 5000, 'Timeout of one notification POST'),
      maxAttempts: int(1, 100, 5, 'Attempts per notification'),
      backoffMs: int(1, 3600000, 1000, 'Wait before the first retry; doubles on each further retry'),
      maxPending: int(1, 100000, 100, 'Notifications queued per receiver at most; the oldest is dropped beyond'),
    }),
    /** Where notifications may go (checked at subscribe time and when each delivery connects). */
    notifications: Section({
      allowedNetworks: Type.Array(ADDRESSES, {
        maxItems: 256,
        default: DEFAULT_ALLOWED_NETWORKS,
        description: 'CIDRs (or single addresses) notifications may be delivered to; link-local, unspecified and multicast addresses never are',
      }),
      allowedHosts: Type.Array(Type.String({ pattern: '^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\\.?$', maxLength: 253 }), {
        maxItems: 256,
        default: [],
        description: 'Host names (or *.domain) whose addresses notifications may reach even outside allowedNetworks (never link-local)',
      }),
    }),
  },
  { additionalProperties: false },
);

export type SoapMpsConfig = Static<typeof CONFIG_SCHEMA>;
