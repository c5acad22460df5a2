/**
 * What a plugin sees of the cluster (`ctx.cluster`): several gateway instances on one PostgreSQL
 * store. On a one-box site (LevelDB) `enabled` is false and every method does what one instance
 * alone would: leases are local turns, nothing is shared, nothing forwarded. Since kernel API 1.6.
 */
import type { IncomingMessage } from 'node:http';
import type { RouteRequest } from '../http/route-api.js';

export type { ClusterInstance } from './cluster-schemas.js';
import type { ClusterInstance } from './cluster-schemas.js';

/** Decides which instance serves a request: another's id to forward it there, or null to serve it here. */
export type RequestRouter = (req: RouteRequest) => string | null | Promise<string | null>;

export interface PluginCluster {
  /** False on a one-box site. */
  readonly enabled: boolean;
  /** This instance: its id (one per process start) and name. */
  readonly self: { readonly id: string; readonly name: string };
  /** Every instance seen lately (this one too), up or down. */
  instances(): Promise<ClusterInstance[]>;
  /** Whether the instance with this id is up (its heartbeat younger than `cluster.downAfterSeconds`), from the last heartbeat's view. */
  isUp(id: string): boolean;
  /** The ids of the instances up now (this one included), sorted: the same list on every instance that sees the same heartbeats. */
  upInstances(): string[];
  /**
   * The instance that owns `key` (e.g. a device id): the key hashed onto the instances up now, the
   * same on every instance; this one on a one-box site. For work one instance must do for a key
   * (probe a device, count its wrong codes). Since kernel API 1.6.
   */
  ownerOf(key: string): string;
  /** Calls `listener` when an instance is seen down (once per instance). */
  onInstanceDown(listener: (id: string) => void): void;
  /**
   * Runs `work` while holding the cluster-wide lease `name`: no other operation of any instance
   * holds it meanwhile. Waits for it at most `waitMs` (default 30 s), then fails with 503. A lease
   * of an instance that went down may be taken.
   */
  exclusive<T>(name: string, work: () => Promise<T>, options?: { waitMs?: number }): Promise<T>;
  /** Reads the other instances' writes now, so that what this instance mirrors is current. */
  catchUp(): Promise<void>;
  /** The next number of the cluster-wide counter `name` (1, 2, ..., at least `atLeast`), never handed out twice. */
  next(name: string, atLeast?: number): Promise<number>;
  /** Bus events of these names published here reach the other instances' buses (and theirs reach this one). */
  shareEvents(names: string[]): void;
  /** Whether an event payload came from another instance (listeners that act once per cluster skip those). */
  isRemote(payload: object): boolean;
  /** Adds a router consulted before every route's handler: a request another instance must serve is forwarded there. */
  routeRequests(router: RequestRouter): void;
  /**
   * Adds a router for WebSocket upgrades of `path` (one a plugin claimed with `ctx.http.onUpgrade`):
   * an upgrade it names another instance for is passed there, signed, and served by that instance's
   * handler (`ctx.http.clientAddress(req)` gives the client's address there). Since kernel API 1.6.
   */
  routeUpgrades(path: string, router: (req: IncomingMessage) => string | null): void;
  /** Sets how this instance counts its CIRA tunnels for GET /api/cluster. */
  reportTunnels(count: () => number): void;
}
