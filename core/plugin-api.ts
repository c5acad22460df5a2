/**
 * The public plugin contract of amt-gateway.
 *
 * A plugin is a module whose default export is the value returned by {@link definePlugin}.
 * The kernel loads the plugins a site enables, orders them by their declared dependencies,
 * and calls each plugin's `register` with a {@link PluginContext} scoped to that plugin.
 *
 * Everything exported from this file is public API: third-party plugins depend on it. It is the
 * kernel's contract only (`amt-gateway/kernel`): the built-in plugins publish their own types
 * (`amt-gateway/devices`, `amt-gateway/remote-monitor`, ...). `amt-gateway/plugin-api` still
 * brings both, for plugins written against 1.x (deprecated, see compat/plugin-api.ts).
 */
import type { Server as HttpServer, IncomingMessage, RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EventBus } from './events/event-bus.js';
import type { Logger } from './log/logger.js';
import type { KeyValueStore } from './store/key-value-store.js';
import type { WorkerPool } from './pool/worker-pool.js';
import type { JsonSchema } from './validation/json-schema.js';
import type { TSchema } from '@sinclair/typebox';
import type { CorsRegistration, MountHandler, ParamDeclaration, RouteGeneric, RouteSpec, SchemaRouteSpec } from './http/route-api.js';
import type { PluginAuth } from './auth/auth-api.js';

export type { EventBus } from './events/event-bus.js';
export type { Logger } from './log/logger.js';
export type { KeyValueStore, BatchOperation, PageOptions } from './store/key-value-store.js';
export type { CollectionDeclaration, CollectionField, CollectionFieldType } from './store/collections.js';
export type { PluginCluster, ClusterInstance, RequestRouter } from './cluster/cluster-api.js';
import type { PluginCluster } from './cluster/cluster-api.js';
export type { WorkerPool, TaskRunOptions, CancelToken } from './pool/worker-pool.js';
export type { ThreadLoad } from './pool/thread-delay.js';
export type { JsonSchema } from './validation/json-schema.js';
export type {
  AuthenticatedUser,
  BodyOf,
  CorsRegistration,
  HttpMethod,
  MountHandler,
  MountRequest,
  ParamDeclaration,
  ParamsOf,
  QuerystringOf,
  RouteGeneric,
  RouteHandler,
  RouteReply,
  RouteRequest,
  RouteResponse,
  RouteSpec,
  SchemaGeneric,
  SchemaRouteSpec,
} from './http/route-api.js';
/**
 * TypeBox (`@sinclair/typebox`), the kernel's copy: build a route's `body` and `query` schemas and a
 * plugin's `configSchema` with it, and the handler's request and `ctx.config` are typed from them.
 */
export { Type, type Static, type TSchema } from '@sinclair/typebox';
export { ComponentRef, DateTime, Nullable, NullableEnum, NullableString, StringEnum } from './validation/schema-types.js';
export type { ReadinessCheck, ReadinessResult } from './health/readiness.js';
export type { AttemptThrottle, AttemptThrottleOptions, PluginAuth, SignInRequest, SignInResult, ThrottledAttempt } from './auth/auth-api.js';
export { HttpError, isHttpError, type HttpErrorShape, type ProblemFieldError } from './http/http-error.js';
/** Answers a refused WebSocket upgrade (in an {@link UpgradeHandler}) with a problem+json response and closes the socket. Since kernel API 1.4. */
export { refuseUpgrade } from './http/upgrade-refusal.js';

/** The version of the plugin API this kernel implements. Plugins declare the majors they accept. */
export const KERNEL_API_VERSION = '1.6.0';

/**
 * Events carried on the bus, by name: the payload type. The kernel's own are here; each plugin
 * adds its own by declaration merging, and importing that plugin's entry point (e.g.
 * `amt-gateway/devices` for `ScanCompleted`) brings them:
 *
 * ```ts
 * declare module 'amt-gateway/kernel' { interface GatewayEvents { MyEvent: { id: string } } }
 * ```
 */
export interface GatewayEvents {
  /** The kernel answered a sign-in attempt (published awaited, before the answer is sent). */
  SignInAttempted: SignInAttemptedEvent;
  /** The kernel changed a gateway user (published awaited, before the answer is sent). */
  UserChanged: UserChangedEvent;
  /**
   * A user's access shrank: a sign-out, a password change, the user's deletion, or permissions taken
   * away (published awaited, before the answer is sent). Whoever holds something open for a user (a
   * console session, a hub connection, a cached check) ends or narrows it at once.
   */
  AccessRevoked: AccessRevokedEvent;
  /** The main listener answered a request (published after the answer). */
  HttpRequestCompleted: HttpRequestCompletedEvent;
}

/** Who asked for something: the signed-in user (if any) and the client address. */
export interface RequestActor {
  user: string | null;
  address: string;
}

export interface SignInAttemptedEvent extends RequestActor {
  /** `refused`: not checked at all, the client is throttled (429). */
  outcome: 'success' | 'failure' | 'refused';
  /** The way in: `rest` (`POST /api/auth/login`), `soap` (HTTP Basic), or the door a plugin named in `ctx.auth.signIn`. */
  door: string;
}

export interface AccessRevokedEvent extends RequestActor {
  /** The user whose access shrank: its immutable id (see {@link AuthenticatedUser.id}) and its name. */
  userId: string;
  username: string;
  /** `signed-out`: one token revoked; `password-changed` and `deleted`: all of the user's; `permissions-changed`: tokens hold, permissions changed. */
  reason: 'signed-out' | 'password-changed' | 'deleted' | 'permissions-changed';
  /** The tokens that no longer hold, by `PluginAuth.tokenId` (empty for `permissions-changed`). */
  tokenIds: string[];
}

export interface UserChangedEvent extends RequestActor {
  change: 'created' | 'updated' | 'deleted';
  /** The user changed. */
  username: string;
  /** The permissions after the change, when they were set. */
  permissions?: string[];
  passwordChanged?: boolean;
}

export interface HttpRequestCompletedEvent {
  method: string;
  /** The matched route's template (e.g. `/api/devices/:id`), a mount's prefix, or null when nothing matched. */
  route: string | null;
  status: number;
  durationSeconds: number;
}

/**
 * Services plugins provide to the plugins that depend on them, keyed by service name. A providing
 * plugin augments this interface the same way as {@link GatewayEvents}, and its entry point brings
 * the augmentation (`amt-gateway/devices`: `devices`, `credentials`, `deviceGate`, `devicePresence`), so that
 * `ctx.use(name)` is typed.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface GatewayServices {}

/** A permission a plugin introduces, e.g. `power:control`. */
export interface PermissionDeclaration {
  name: string;
  description: string;
}

/** Metadata of a front-end route, as the contract's `GET /api/routes` returns it. */
export interface FrontendRouteMeta {
  title: string;
  icon?: string;
  /** The permission a user needs to see the route; null: every signed-in user sees it. */
  permission: string | null;
  /** Position in the menu; lower comes first. Default 100. */
  order?: number;
}

/** A front-end route a plugin contributes to the menu. */
export interface FrontendRoute {
  path: string;
  name: string;
  meta: FrontendRouteMeta;
  children?: FrontendRoute[];
}

/** Handles an HTTP upgrade (WebSocket) request for a path the plugin claimed. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The HTTP surface a plugin gets: its own routes under its own prefix. */
export interface PluginHttp {
  /** The plugin's prefix, e.g. `/api/power`. */
  readonly prefix: string;
  /**
   * Declares an authenticated, validated, documented route under the plugin's prefix. With TypeBox
   * `body` / `query` schemas the handler's request is typed from them (no type arguments, no casts);
   * with plain JSON Schemas type its inputs Fastify-style: `route<{ Body: B; Querystring: Q; Params: P }>({...})`.
   */
  route<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, P extends Record<string, ParamDeclaration> = Record<string, ParamDeclaration>>(
    spec: SchemaRouteSpec<B, Q, P>,
  ): void;
  route<G extends RouteGeneric = RouteGeneric>(spec: RouteSpec<G>): void;
  /** Claims WebSocket upgrades for an absolute path (e.g. `/scanHub`). */
  onUpgrade(path: string, handler: UpgradeHandler): void;
  /**
   * The address of an upgrade request's client: its socket's peer, or for an upgrade another
   * instance of a cluster passed on (`ctx.cluster.routeUpgrades`), the client that instance served.
   * Since kernel API 1.6.
   */
  clientAddress(req: IncomingMessage): string;
  /**
   * A handler for an absolute path prefix, run before routing (for protocols that are not JSON
   * routes, e.g. SignalR negotiate). The plugin authenticates such requests itself. Cross-origin
   * requests are allowed on the prefix as on the routes.
   */
  mount(pathPrefix: string, handler: MountHandler): void;
  /**
   * Tells the kernel what cross-origin front ends need beyond what the routes say. The paths of
   * routes and mounts, and the response headers routes document, are allowed without it.
   */
  cors(registration: CorsRegistration): void;
}

/** Adds schemas to the OpenAPI document (`components.schemas`) and to request validation. */
export interface PluginOpenApi {
  /** Registers `schema` as `#/components/schemas/{name}`; reference it as `{ $ref: '#/components/schemas/{name}' }`. */
  addSchema(name: string, schema: JsonSchema): void;
  /** Adds a tag with a description for the plugin's routes. */
  addTag(name: string, description: string): void;
}

/** NaCl secretbox sealing under the gateway's master key. */
export interface PluginSecrets {
  /** Seals a UTF-8 secret; the result is printable and safe to store. */
  seal(plaintext: string): string;
  /** Opens a sealed secret; throws a `GW_ERR_UNSEAL_FAILED` error on a wrong key or a damaged value. */
  unseal(sealed: string): string;
}

/** What a plugin tells the readiness answer (`GET /api/health/ready`). */
export interface PluginHealth {
  /**
   * Adds a readiness check, reported as `plugin:<plugin>/<name>`: while it answers
   * `{ ready: false, reason }` the gateway is not ready (503) and the answer says why. Checks run
   * on every readiness request, at once, each cut off after 2 s: keep them cheap. The reason is
   * served without a token, so it must hold no secret. A name used twice is an error.
   */
  addReadinessCheck(name: string, check: import('./health/readiness.js').ReadinessCheck): void;
}

/** Options for an extra listener a plugin opens (e.g. the SOAP service on its own port). */
export interface ListenerOptions {
  host: string;
  port: number;
}

/** A running extra listener. */
export interface PluginListener {
  readonly server: HttpServer;
  /** The base URL it listens on, e.g. `http://127.0.0.1:7793`. */
  readonly url: string;
}

/** What the kernel knows about a loaded plugin, for plugins that present it (route list, health). */
export interface PluginManifest {
  name: string;
  version: string;
  dependencies: string[];
  /** The optional dependencies that are enabled. */
  optionalDependencies?: string[];
  permissions: PermissionDeclaration[];
  routes: FrontendRoute[];
}

/** The context a plugin registers against; everything in it is scoped to that plugin. */
export interface PluginContext<TConfig = unknown> {
  readonly name: string;
  /** The plugin's `options` from the site config, validated against its `configSchema`, defaults applied. */
  readonly config: TConfig;
  /** Site-wide settings every plugin may read. */
  readonly site: SiteSettings;
  readonly http: PluginHttp;
  readonly openapi: PluginOpenApi;
  /** The other gateway instances sharing this one's PostgreSQL store (a one-box site: `enabled` false). Since kernel API 1.6. */
  readonly cluster: PluginCluster;
  /** The plugin's own namespace in the store (LevelDB, or PostgreSQL for a cluster). */
  readonly store: KeyValueStore;
  readonly events: EventBus;
  readonly pool: WorkerPool;
  readonly logger: Logger;
  readonly auth: PluginAuth;
  readonly secrets: PluginSecrets;
  /** Readiness checks the plugin adds to `GET /api/health/ready`. */
  readonly health: PluginHealth;
  /** Manifests of every loaded plugin, in registration order. */
  plugins(): PluginManifest[];
  /** Offers a service to the plugins that depend on this one. */
  provide<K extends keyof GatewayServices>(name: K, service: GatewayServices[K]): void;
  /** Uses a service provided by a plugin this one depends on; throws if none provides it. */
  use<K extends keyof GatewayServices>(name: K): GatewayServices[K];
  /**
   * Uses a service of an optional dependency: undefined when no enabled plugin provides it. Throws
   * like `use` when the providing plugin is enabled but not declared in `optionalDependencies`.
   */
  useOptional<K extends keyof GatewayServices>(name: K): GatewayServices[K] | undefined;
  /** Opens an extra HTTP(S) listener through the kernel (TLS applied when the site configures it). */
  listen(handler: RequestListener, options: ListenerOptions): Promise<PluginListener>;
  /**
   * Tells the kernel of a TCP listener the plugin opened itself (not through `listen`), e.g. a server
   * for a protocol of its own, so that `site.listeners()` names it: whatever may be pointed at an
   * address (notification receivers, say) must never be this gateway itself. Since 1.4.0.
   */
  declareListener(address: ListenerAddress): void;
  /** Runs once every plugin is registered and the main listener is serving. */
  onReady(hook: () => void | Promise<void>): void;
  /**
   * Runs as soon as shutdown starts, before the listeners stop accepting and drain: the moment to
   * tell long-lived clients (WebSockets) to go, since draining waits for them.
   */
  onStopping(hook: () => void | Promise<void>): void;
  /** Runs at shutdown, in reverse registration order, after the listeners closed and before the store closes. */
  onClose(hook: () => void | Promise<void>): void;
  /**
   * Adds a read-only setting to {@link SiteSettings} for every plugin (since kernel API 1.5): how a
   * plugin that took over settings the kernel used to hold keeps them where plugins of the 1.x line
   * read them (the devices plugin's `site.amt`). A name the kernel or another plugin holds already
   * is `GW_ERR_PLUGIN_CLASH`, naming both.
   * @deprecated for compatibility only: a new setting is an option or a service of its plugin.
   */
  extendSite(name: string, value: unknown): void;
}

/** Where a listener of this gateway accepts connections. */
export interface ListenerAddress {
  /** The bound address as the server reports it (`0.0.0.0` or `::` for every interface). */
  host: string;
  port: number;
}

/**
 * Settings of the site that plugins may read. A plugin that took over a setting the kernel used to
 * hold adds it back for the 1.x line with `ctx.extendSite` and declares it by augmenting this
 * interface (the devices plugin: `amt`, `deviceTls`, deprecated since kernel API 1.5).
 */
export interface SiteSettings {
  /** The main listener's base URL once listening, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: () => string;
  /** Every TCP listener of this gateway now: the main one, those plugins opened with `listen`, and those they declared. Since 1.4.0. */
  readonly listeners: () => ReadonlyArray<Readonly<ListenerAddress> & { plugin: string }>;
  /** The host the main listener binds (known at registration, unlike `baseUrl`). */
  readonly host: string;
  /**
   * The origins browsers reach this gateway at (`server.publicOrigins`), empty when not configured.
   * A WebSocket Origin check compares with these when set, never with the request's Host, which a
   * DNS-rebinding page controls. Since 1.4.0.
   */
  readonly publicOrigins: readonly string[];
  readonly dataDir: string;
}

export { definePlugin, type PluginDefinition, type PluginEnvOverride, type SchemaPluginDefinition } from './plugins/plugin-definition.js';
