/**
 * Which instance of a cluster owns a key (a device id): the key hashed onto the instances that are
 * up, so that every instance that sees the same heartbeats names the same one, and one instance's
 * death hands its share to the others at their next heartbeat.
 */

/** FNV-1a of the key: spreads UUIDs evenly, the same on every instance. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The owner of `key` among `up` (sorted ids of the instances up; `self` when alone). */
export function ownerAmong(up: readonly string[], key: string, self: string): string {
  return up.length === 0 ? self : up[hash(key) % up.length]!;
}
