/**
 * The ports Intel AMT listens on (AMT-NOTES): WS-Management over HTTP and over TLS, redirection
 * (KVM, serial-over-LAN, IDE-R) in the clear and over TLS, and the RMCP presence ping on UDP. The one
 * home of these numbers: the devices plugin's `ports` may move http, https and rmcp; a CIRA tunnel
 * forwards the device's own ports, so the tunnel side always uses these.
 */
export const AMT_PORTS = { http: 16992, https: 16993, redirection: 16994, redirectionTls: 16995, rmcp: 623 } as const;
