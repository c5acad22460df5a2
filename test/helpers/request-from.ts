/**
 * An HTTP request from a chosen loopback source address (127.0.0.0/8), so that a test can be
 * several clients: the gateway keys sign-in throttles and audit aggregation on the client address.
 * node:http, since undici's connector does not take a local address.
 */
import { request } from 'node:http';

export interface FromResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function requestFrom(localAddress: string, url: string, options: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<FromResponse> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? 'GET',
        localAddress,
        agent: false,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}
