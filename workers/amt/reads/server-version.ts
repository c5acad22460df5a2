/** The firmware version an AMT device names in its `Server` header, readable without credentials. */

/**
 * `Intel(R) Active Management Technology 15.0.23.1706` -> `15.0.23.1706`; null for any other server.
 */
export function parseServerVersion(server: string | null | undefined): string | null {
  if (!server) return null;
  const match = /Active Management Technology\s+(\d+(?:\.\d+){1,3})/i.exec(server);
  return match ? match[1]! : null;
}
