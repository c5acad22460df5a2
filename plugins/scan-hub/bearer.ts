import type { IncomingHttpHeaders } from 'node:http';

/**
 * The bearer token of a hub request: the `Authorization: Bearer` header, else the `access_token`
 * query parameter (how browsers' SignalR clients send it, since WebSockets carry no headers there).
 */
export function bearerToken(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (header) return header[1];
  const fromQuery = query.get('access_token');
  return fromQuery ? fromQuery : undefined;
}
