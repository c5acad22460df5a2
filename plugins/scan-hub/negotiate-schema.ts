/**
 * The body of a negotiate answer (SignalR negotiate protocol, versions 0 and 1): a TypeBox schema,
 * its type derived. Not in the OpenAPI document (negotiate is a mount speaking SignalR's protocol);
 * the hub's tests check its answers against it.
 */
import { Type, type Static } from '@sinclair/typebox';

export const NEGOTIATE_RESPONSE_SCHEMA = Type.Object(
  {
    connectionId: Type.String(),
    connectionToken: Type.Optional(Type.String({ description: 'Version 1 only: the id the client presents at the upgrade (the connection id stays private to logs)' })),
    negotiateVersion: Type.Integer({ minimum: 0, maximum: 1 }),
    availableTransports: Type.Array(
      Type.Object({ transport: Type.Literal('WebSockets'), transferFormats: Type.Array(Type.Literal('Text'), { minItems: 1, maxItems: 1 }) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export type NegotiateResponse = Static<typeof NEGOTIATE_RESPONSE_SCHEMA>;
