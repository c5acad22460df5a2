/** A serial console client over the gateway's relay WebSocket: plain terminal bytes both ways. */
import type { WebSocket } from 'ws';

export class SolClient {
  text = '';
  #waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.text += data.toString('latin1');
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  type(text: string): void {
    this.ws.send(Buffer.from(text, 'latin1'));
  }

  /** Resolves once the console has shown `expected` (after `from`), or rejects after `timeoutMs`. */
  async waitFor(expected: string, timeoutMs = 5_000, from = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.text.slice(from).includes(expected)) {
      if (Date.now() > deadline) throw new Error(`console did not show ${JSON.stringify(expected)}; it shows ${JSON.stringify(this.text.slice(-200))}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
}
