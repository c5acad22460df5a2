/** A benchmark's child process asked over IPC: sends `request` (if any) and waits for its reply of `type`. */
import type { ChildProcess } from 'node:child_process';

export function askChild<Reply extends { type: string }, K extends Reply['type']>(child: ChildProcess, request: object | null, type: K, what: string): Promise<Extract<Reply, { type: K }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Reply) => {
      if (message.type !== type) return;
      cleanup();
      resolve(message as Extract<Reply, { type: K }>);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`${what} exited (${code})`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    if (request) child.send(request);
  });
}
