/**
 * The site configuration's schema, in TypeBox, and its type, derived from it: what `loadConfig`
 * validates is what the kernel reads. `schemas/config.schema.json` (shipped for editors and
 * operators) is written from it by `node --import tsx scripts/write-config-schema.ts`, and a test
 * keeps the two the same.
 */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, StringEnum } from '../validation/schema-types.js';

const int = (minimum: number, maximum?: number, description?: string) => Type.Integer({ minimum, ...(maximum === undefined ? {} : { maximum }), ...(description ? { description } : {}) });
const closed = { additionalProperties: false } as const;

const SERVER = Type.Object(
  {
    host: Type.String({ minLength: 1 }),
    port: int(0, 65535),
    bodyLimitBytes: int(1024, 104857600),
    shutdownTimeoutMs: int(0, 600000),
    tls: Type.Object({ cert: Type.Optional(NullableString()), key: Type.Optional(NullableString()) }, closed),
    publicOrigins: Type.Optional(
      Type.Array(Type.String({ pattern: '^https?://[^/]+$' }), {
        uniqueItems: true,
        maxItems: 64,
        description:
          "The origins browsers reach this gateway at (https://gateway.example): WebSocket Origin checks compare with them instead of the request's Host header, which a DNS-rebinding page controls. Default none: same-origin by Host",
      }),
    ),
  },
  closed,
);

const LOGIN = Type.Object(
  {
    freeFailures: int(0),
    maxFailures: int(1, 1000),
    windowSeconds: int(1),
    delayStepMs: int(0, 10000),
    addressMaxFailures: Type.Optional(int(1, 1000, 'Failures from one client address, all user names together, before every login from it is refused; default 10 x maxFailures, at most 1000')),
    maxConcurrentPerName: Type.Optional(int(1, 100, 'Login attempts for one user name from one client address under way at once; more get 429. Default 2')),
    maxConcurrentPerAddress: Type.Optional(int(1, 1000, 'Login attempts from one client address under way at once, all names together; more get 429. Default 10')),
  },
  closed,
);

const PLUGIN_SETTING = Type.Object(
  {
    enable: Type.Boolean(),
    path: Type.Optional(Type.String({ minLength: 1, description: 'Module path of a third-party plugin (relative to the working directory)' })),
    package: Type.Optional(Type.String({ minLength: 1, description: 'npm package name of a third-party plugin' })),
    options: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
  },
  { ...closed, not: { required: ['path', 'package'] } },
);

const STORE = Type.Object(
  {
    driver: StringEnum(['level', 'postgres'], { description: 'level: LevelDB in <dataDir>/db (default); postgres: the database at store.url, shared by a cluster' }),
    url: Type.Optional(NullableString({ description: 'postgres://user:password@host:port/database (store.driver postgres); env AMTGW_STORE_URL' })),
    poolSize: Type.Optional(int(1, 200, 'Database connections this instance holds at most; default 10')),
    changeRetentionSeconds: Type.Optional(int(60, 604800, 'How long the change log keeps each write for instances catching up; default 3600')),
  },
  closed,
);

const CLUSTER = Type.Object(
  {
    instanceName: Type.Optional(NullableString({ description: "This instance's name in GET /api/cluster; default host name and port. Env AMTGW_INSTANCE_NAME" })),
    advertiseUrl: Type.Optional(NullableString({ description: 'Where the other instances reach this one for internal calls, e.g. http://10.0.0.5:8080; default the main listener. Env AMTGW_ADVERTISE_URL' })),
    heartbeatSeconds: Type.Optional(int(1, 60, 'How often this instance says it is alive; default 3')),
    downAfterSeconds: Type.Optional(int(2, 600, 'An instance without a heartbeat for this long is down; default 15')),
    forwardTimeoutMs: Type.Optional(int(100, 120000, 'How long a call forwarded to another instance may take; default 30000')),
  },
  closed,
);

/** A plugin's entry in the site configuration. */
export type PluginSetting = Static<typeof PLUGIN_SETTING>;

export const GATEWAY_CONFIG_SCHEMA = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    server: SERVER,
    dataDir: Type.String({ minLength: 1 }),
    masterKeyFile: Type.Optional(NullableString({ description: 'Path of the master key file; default <dataDir>/master.key' })),
    log: Type.Object({ level: StringEnum(['debug', 'info', 'warn', 'error', 'silent']) }, closed),
    cors: Type.Object({ origins: Type.Array(Type.String({ pattern: '^https?://[^/]+$' }), { uniqueItems: true }), maxAgeSeconds: Type.Optional(int(0)) }, closed),
    auth: Type.Object(
      {
        tokenTtlSeconds: int(1, 2592000),
        maxTokensPerUser: Type.Optional(int(1, 100000, 'Live bearer tokens one user holds at most; a sign-in beyond revokes its oldest (what that sign-in opened ends). Default 100')),
        adminPasswordFile: Type.Optional(NullableString({ description: 'Where a generated admin password is written; default <dataDir>/admin-password' })),
        login: LOGIN,
      },
      closed,
    ),
    store: Type.Optional(STORE),
    cluster: Type.Optional(CLUSTER),
    workers: Type.Object({ threads: int(1, 64), concurrentTasksPerWorker: int(1, 1024), maxQueue: int(1), idleTimeoutMs: int(0) }, closed),
    plugins: Type.Unsafe<Record<string, PluginSetting>>({ type: 'object', additionalProperties: PLUGIN_SETTING }),
  },
  {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://amt-gateway.local/schemas/config.schema.json',
    title: 'amt-gateway site configuration',
    // Besides the kernel's sections, only a section an enabled plugin claims (`formerSections` of its
    // definition: where some of its options lived before, e.g. the devices plugin's `amt`); the
    // load phase refuses any other (core/startup/former-sections.ts).
    additionalProperties: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
  },
);

/** The validated site configuration (see the README). */
export type GatewayConfig = Static<typeof GATEWAY_CONFIG_SCHEMA>;

/** The top-level sections the kernel reads itself; any other belongs to the plugin that claims it. */
export const KERNEL_SECTIONS: ReadonlySet<string> = new Set(Object.keys(GATEWAY_CONFIG_SCHEMA.properties));
