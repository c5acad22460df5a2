/** Whether a device's `tcpip-forward` request may add its port to the tunnel's forwarded ports. */

const MAX_PORT = 65535;

/** Why the forward of `port` is refused, or null when it is accepted (a port already forwarded always is). */
export function forwardRefusal(forwarded: ReadonlySet<number>, port: number, maxForwards: number): string | null {
  if (!Number.isInteger(port) || port < 1 || port > MAX_PORT) return `port ${port} is not a TCP port`;
  if (forwarded.has(port)) return null;
  if (forwarded.size >= maxForwards) return `${forwarded.size} ports forwarded already, the most allowed`;
  return null;
}
