/** How many connections may be held at once, in all and from one address: a ticket per connection, given back once. */

export interface ConnectionTicket {
  /** The connection ended (or no longer counts); only the first call counts. */
  release(): void;
}

export interface ConnectionBudget {
  /** A ticket for a new connection from `address`, or the bound it would exceed. */
  admit(address: string): ConnectionTicket | { refused: 'total' | 'address' };
  /** Connections holding a ticket now. */
  readonly held: number;
}

export function createConnectionBudget(bounds: { total: number; perAddress: number }): ConnectionBudget {
  const perAddress = new Map<string, number>();
  let held = 0;
  return {
    get held() {
      return held;
    },
    admit(address) {
      const fromAddress = perAddress.get(address) ?? 0;
      if (held >= bounds.total) return { refused: 'total' };
      if (fromAddress >= bounds.perAddress) return { refused: 'address' };
      held++;
      perAddress.set(address, fromAddress + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          held--;
          const left = (perAddress.get(address) ?? 1) - 1;
          if (left > 0) perAddress.set(address, left);
          else perAddress.delete(address);
        },
      };
    },
  };
}
