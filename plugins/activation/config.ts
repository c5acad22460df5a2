/** Options of the activation plugin (`plugins.activation.options`, CONTRACT section 16); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, Section } from '../../core/validation/schema-types.js';

const int = (minimum: number, maximum: number, value: number, description: string) => Type.Integer({ minimum, maximum, default: value, description });
const CIDR = Type.String({ pattern: '^(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}/([0-9]|[12][0-9]|3[0-2])$' });

export const ACTIVATION_CONFIG_SCHEMA = Section({
  /** The WebSocket path rpc-go dials (`rpc activate -u wss://GATEWAY/activate`). */
  path: Type.String({ default: '/activate', pattern: '^/[A-Za-z0-9/_.-]{0,100}$', description: 'WebSocket path of the activation endpoint' }),
  /** Source networks that may open the endpoint; null: the devices plugin's `allowedNetworks` (the device gate's rule). */
  allowedNetworks: Type.Union([Type.Array(CIDR, { maxItems: 256 }), Type.Null()], { default: null, description: "CIDRs agents may connect from; null: the devices plugin's allowedNetworks" }),
  /** Agents connected at once (each holds one WebSocket and at most one request to its firmware). */
  maxSessions: int(1, 100_000, 2000, 'Agent connections at once; more are refused with 503'),
  /** Agents from one source address at once (one machine runs one agent; NAT may put a few behind one). */
  maxSessionsPerAddress: int(1, 10_000, 16, 'Agent connections from one address at once'),
  /** Bound of every exchange relayed through an agent: the agent must answer each request within it. */
  stepTimeoutMs: int(1000, 600_000, 20_000, 'Most time one relayed WS-Management request may take (rpc-go gives up on silent firmware after 1.5 s)'),
  /** The agent's first message must come within this. */
  helloTimeoutMs: int(100, 120_000, 15_000, 'Most time from connect to the first message'),
  /** Bound of one whole action (activation, deactivation, maintenance). */
  actionTimeoutMs: int(10_000, 3_600_000, 600_000, 'Most time one action may take'),
  /** Heartbeat requests sent while the server waits (an approval, a firmware transition). */
  heartbeatSeconds: int(1, 3600, 20, 'Seconds between heartbeat requests while waiting'),
  /** Largest message an agent may send (RPS allows 100 KB). */
  maxMessageBytes: int(1024, 4_194_304, 102_400, 'Largest WebSocket message accepted from an agent'),
  /** How long an activation whose UUID names another managed device waits for an operator's approval. */
  approvalWaitSeconds: int(0, 86_400, 300, 'Seconds an activation waits for approval (0: fail at once, approve, run again)'),
  /** How long an approval stays valid for its UUID once given. */
  approvalValidSeconds: int(60, 604_800, 3600, 'Seconds an approval stays valid'),
  /** How long a one-time code for `rpc deactivate` / `rpc maintenance` stays valid. */
  codeValidSeconds: int(60, 86_400, 900, 'Seconds a one-time code stays valid'),
  /** Failed password proofs (a device's AMT password or a one-time code shown by an agent) of one device from one address within the window before that address is refused for it. */
  proofMaxFailures: int(1, 100, 5, 'Failed password proofs of one device from one address before that address is refused for the device'),
  /** The same for one device from every address together: guessing from many addresses gains nothing. */
  proofDeviceMaxFailures: int(1, 1000, 10, 'Failed password proofs of one device from all addresses before every proof for it is refused'),
  /** The same for one address over every device (an agent spraying devices). */
  proofAddressMaxFailures: int(1, 1000, 20, 'Failed password proofs from one address, all devices together, before every proof from it is refused'),
  /** The window the failures count in; a refusal lasts until the oldest counted failure leaves it. */
  proofWindowSeconds: int(10, 86_400, 900, 'Seconds failed password proofs are counted for'),
  /** Records kept (oldest dropped first). */
  maxRecords: int(100, 10_000_000, 100_000, 'Activation records kept'),
  /** What devices dial for CIRA (`host` or `host:port`); null: the cira plugin's address (its publicAddress, else its listener). */
  ciraAddress: NullableString({
    default: null,
    maxLength: 261,
    pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?$',
    description: 'Address provisioned into devices as their MPS server',
  }),
  /** Seconds between the periodic CIRA connections a device makes when it has no tunnel (AMT's periodic policy). */
  ciraPeriodicSeconds: int(10, 86_400, 25, 'Periodic CIRA connection interval written into devices'),
  /** A certificate expiring within this many days is flagged. */
  certificateWarningDays: int(1, 365, 30, 'Days before expiry a provisioning certificate is flagged'),
});

export type ActivationConfig = Static<typeof ACTIVATION_CONFIG_SCHEMA>;
