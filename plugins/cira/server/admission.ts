/**
 * Bounds the connections that have not signed in yet (TLS handshakes included), per address and in
 * total, so that a flood before sign-in cannot hold the memory of thousands of TLS sockets. A
 * connection counts from TCP accept until it signs in or closes.
 */
export interface AdmissionOptions {
  maxUnauthenticated: number;
  maxUnauthenticatedPerAddress: number;
}

export interface AdmissionTicket {
  /** The connection signed in or closed; only the first call counts. */
  release(): void;
}

export interface Admission {
  /** A ticket for a new connection from `address`, or the bound it would exceed. */
  admit(address: string): AdmissionTicket | { refused: 'total' | 'address' };
  readonly unauthenticated: number;
}

export function createAdmission(options: AdmissionOptions): Admission {
  const perAddress = new Map<string, number>();
  let total = 0;
  return {
    get unauthenticated() {
      return total;
    },
    admit(address) {
      const fromAddress = perAddress.get(address) ?? 0;
      if (total >= options.maxUnauthenticated) return { refused: 'total' };
      if (fromAddress >= options.maxUnauthenticatedPerAddress) return { refused: 'address' };
      total++;
      perAddress.set(address, fromAddress + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          total--;
          const left = (perAddress.get(address) ?? 1) - 1;
          if (left > 0) perAddress.set(address, left);
          else perAddress.delete(address);
        },
      };
    },
  };
}
