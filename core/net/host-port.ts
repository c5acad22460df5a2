/** `host`, `host:port` and `[v6]:port` text, as addresses are written in configurations. */

/** The host (brackets of an IPv6 address removed) and the port, `defaultPort` when none is written. */
export function splitHostPort(text: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(text);
  const host = match?.[1] ?? text;
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port: match?.[2] ? Number(match[2]) : defaultPort };
}
