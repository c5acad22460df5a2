/** What a tunnel needs of its connection: a Node TLSSocket (TLS in the gateway) or a plain socket (TLS in HAProxy) offer it. */
export interface TunnelSocket {
  readonly destroyed: boolean;
  readonly writableLength: number;
  write(data: Buffer): boolean;
  end(): unknown;
  end(data: Buffer): unknown;
  destroy(): void;
  pause(): void;
  resume(): void;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'close', listener: () => void): this;
}

/** The device's address as the listener learnt it: the TCP peer, or the PROXY v2 header's source. */
export interface TunnelPeer {
  address?: string | undefined;
  port?: number | undefined;
  /** Called once the tunnel signed in: its connection stops counting as not signed in. */
  signedIn?: () => void;
}
