/**
 * The WS-Management client: sends envelopes to `/wsman` over a bounded transport, authenticates with
 * HTTP Digest reusing the device's nonces (one request at a time on each), follows Enumerate/Pull to
 * the end and turns SOAP Faults into typed errors.
 */
import { randomUUID } from 'node:crypto';
import { credentialTag, digestAuthorization, openDigestSession, type DigestCredentials, type DigestSession } from './digest-auth.js';
import { parseDigestChallenge } from './digest-challenge.js';
import { workerNonceCache, type DigestNonceCache } from './digest-nonce-cache.js';
import { AmtError } from './errors.js';
import { isLockoutPage } from './lockout-page.js';
import type { DeviceTransport, HttpResponse } from './http-transport.js';
import {
  buildEnvelope,
  enumerateRequest,
  getRequest,
  invokeRequest,
  pullRequest,
  putRequest,
  type InputProperties,
  type Selectors,
  type WsmanRequest,
} from './wsman-envelope.js';
import { faultError, faultOf } from './wsman-fault.js';
import {
  parseEnumerateResponse,
  parseEnvelope,
  parseInstance,
  parseMethodOutput,
  parsePullResponse,
  type MethodOutput,
  type WsmanEnvelope,
  type WsmanItem,
} from './wsman-parse.js';

/** How many failed logins (non-stale 401 to a request carrying credentials) a caller allows; shared across clients. */
export interface AuthBudget {
  failuresLeft: number;
}

export interface WsmanClientOptions {
  transport: DeviceTransport;
  credentials: DigestCredentials;
  /** Defaults to the worker thread's shared cache. */
  nonceCache?: DigestNonceCache;
  /** Failed-login budget; defaults to 2 (one re-authentication). */
  authBudget?: AuthBudget;
  /** `MaxElements` per Pull (default 100). */
  maxElements?: number;
  /** Pages after which an enumeration is abandoned as a misbehaving device (default 1000). */
  maxPages?: number;
}

const PATH = '/wsman';
/** Stale 401s one request signs again after: each brings a fresh nonce, so more means a broken device. */
const MAX_STALE_RETRIES = 2;
const CONTENT_TYPE = 'application/soap+xml;charset=UTF-8';

export class WsmanClient {
  readonly #transport: DeviceTransport;
  readonly #credentials: DigestCredentials;
  readonly #tag: string;
  readonly #cache: DigestNonceCache;
  readonly #budget: AuthBudget;
  readonly #maxElements: number;
  readonly #maxPages: number;
  #failedLogins = 0;
  #authenticated = false;

  constructor(options: WsmanClientOptions) {
    this.#transport = options.transport;
    this.#credentials = options.credentials;
    this.#tag = credentialTag(options.credentials);
    this.#cache = options.nonceCache ?? workerNonceCache;
    this.#budget = options.authBudget ?? { failuresLeft: 2 };
    this.#maxElements = options.maxElements ?? 100;
    this.#maxPages = options.maxPages ?? 1000;
  }

  /** Failed logins this client caused (each non-stale 401 to a request that carried credentials). */
  get failedLogins(): number {
    return this.#failedLogins;
  }

  /** True once the device accepted this client's credentials (answered a signed request with other than 401). */
  get authenticated(): boolean {
    return this.#authenticated;
  }

  /** HTTP round trips on the underlying transport so far. */
  get roundTrips(): number {
    return this.#transport.roundTrips;
  }

  /** Gets one instance (the singleton when `selectors` is omitted). */
  async get(className: string, selectors?: Selectors): Promise<WsmanItem> {
    const env = await this.send(getRequest(className, this.#messageId(), selectors));
    return parseInstance(env, className);
  }

  /**
   * Replaces an instance; returns the instance as the device stored it, or null when the device
   * answers with an empty Body (WS-Transfer allows it, and some firmware does: the published
   * vectors show both).
   */
  async put(className: string, properties: InputProperties, selectors?: Selectors): Promise<WsmanItem | null> {
    const env = await this.send(putRequest(className, this.#messageId(), properties, selectors));
    return Object.keys(env.body).length === 0 ? null : parseInstance(env, className);
  }

  /** Invokes a method and returns its `_OUTPUT` (a non-zero `ReturnValue` is the caller's to judge). */
  async invoke(className: string, method: string, input: InputProperties, selectors?: Selectors): Promise<MethodOutput> {
    const env = await this.send(invokeRequest(className, method, this.#messageId(), input, selectors));
    return parseMethodOutput(env, method);
  }

  /**
   * Enumerates every instance of a class: Enumerate, then Pull until `EndOfSequence`.
   * @throws AmtError `AMT_ERR_BAD_RESPONSE` when the device keeps paging past `maxPages`.
   */
  async enumerate(className: string): Promise<WsmanItem[]> {
    const first = parseEnumerateResponse(await this.send(enumerateRequest(className, this.#messageId())));
    const items = [...first.items];
    let context = first.context;
    let done = first.endOfSequence;
    let pages = 0;
    while (!done && context !== null) {
      if (++pages > this.#maxPages) {
        throw new AmtError('AMT_ERR_BAD_RESPONSE', `enumeration of ${className} did not end within ${this.#maxPages} pages`);
      }
      const page = parsePullResponse(await this.send(pullRequest(className, this.#messageId(), context, this.#maxElements)));
      items.push(...page.items);
      done = page.endOfSequence;
      context = page.context ?? null;
    }
    return items;
  }

  /**
   * Sends one request, authenticating as needed, and returns the parsed envelope.
   * @throws AmtError `AMT_ERR_FAULT` for a SOAP Fault, `AMT_ERR_UNAUTHORIZED` for refused credentials,
   * `AMT_ERR_HTTP_STATUS` for other statuses, and the transport's errors.
   */
  async send(request: WsmanRequest): Promise<WsmanEnvelope> {
    return this.sendEnvelope(buildEnvelope(request));
  }

  /**
   * Sends a request envelope built elsewhere (e.g. by Intel's `wsman-messages`), as {@link send} does.
   * The caller escapes what it put in the envelope.
   */
  async sendEnvelope(xml: string): Promise<WsmanEnvelope> {
    const { response, session } = await this.#exchange(xml);
    try {
      const env = this.#interpret(response);
      this.#proven(session);
      return env;
    } catch (error) {
      // A SOAP Fault is a well-formed WS-Management answer: the device accepted the credentials.
      if (error instanceof AmtError && error.code === 'AMT_ERR_FAULT') this.#proven(session);
      throw error;
    }
  }

  /** Only a well-formed WS-Management answer to a signed request proves the credentials. */
  #proven(session: DigestSession | undefined): void {
    if (!session) return;
    session.verifiedFor = this.#tag;
    this.#authenticated = true;
  }

  #messageId(): string {
    return `uuid:${randomUUID()}`;
  }

  async #exchange(xml: string): Promise<{ response: HttpResponse; session: DigestSession | undefined }> {
    const key = this.#transport.target;
    // Sessions are lent to one request at a time (see DigestNonceCache); one lost to a transport error
    // is dropped, as the device may or may not have counted its nc.
    let session = this.#cache.take(key);
    let refused = false;
    let staleLeft = MAX_STALE_RETRIES;
    for (;;) {
      const headers: Record<string, string> = { 'content-type': CONTENT_TYPE };
      const signed = session;
      if (signed) headers['authorization'] = digestAuthorization(this.#credentials, signed, 'POST', PATH);
      const response = await this.#transport.request('POST', PATH, headers, xml);
      if (response.status !== 401) {
        // AMT asks every unsigned request for Digest: a peer that answers one instead never checked
        // who we are, and whatever it says (a 200, a Fault) is no answer of the device.
        if (!signed) throw new AmtError('AMT_ERR_NO_CHALLENGE', `${key} answered HTTP ${response.status} without asking for authentication`, { status: response.status });
        this.#cache.give(key, signed);
        return { response, session: signed };
      }
      const challenge = parseDigestChallenge(response.headers['www-authenticate']);
      if (!challenge) throw new AmtError('AMT_ERR_BAD_RESPONSE', `${key} answered 401 without a Digest challenge`, { status: 401 });
      const fresh = openDigestSession(challenge);
      if (!signed) {
        session = fresh;
        continue;
      }
      // A locked device refuses every credential: not a verdict on these, and no retry would help.
      if (isLockoutPage(response.body)) {
        this.#cache.give(key, fresh);
        throw new AmtError('AMT_ERR_LOCKED_OUT', `${key} says the account is locked after repeated failed logins`, { status: 401 });
      }
      // Stale: the response was right but the nonce no longer is (expired, or an nc the device saw
      // out of order). Not a failed login: sign again on the nonce this 401 brings.
      if (challenge.stale) {
        if (staleLeft-- > 0) {
          session = fresh;
          continue;
        }
        this.#cache.give(key, fresh);
        throw new AmtError('AMT_ERR_BAD_RESPONSE', `${key} kept answering that fresh nonces are stale`, { status: 401 });
      }
      this.#failedLogins++;
      this.#budget.failuresLeft--;
      // Re-authenticate once when the refused nonce had worked for these very credentials (it probably
      // expired without the device saying so); a refusal on a nonce they never proved is theirs.
      const mayRetry = !refused && this.#budget.failuresLeft > 0 && signed.verifiedFor === this.#tag;
      if (!mayRetry) {
        this.#cache.give(key, fresh);
        throw new AmtError('AMT_ERR_UNAUTHORIZED', `${key} refused the credentials`, { status: 401 });
      }
      refused = true;
      session = fresh;
    }
  }

  #interpret(response: HttpResponse): WsmanEnvelope {
    const { status } = response;
    const key = this.#transport.target;
    if (status === 200 || status === 400 || status === 500) {
      let env: WsmanEnvelope;
      try {
        env = parseEnvelope(response.body);
      } catch (error) {
        if (status !== 200) throw new AmtError('AMT_ERR_HTTP_STATUS', `${key} answered HTTP ${status}`, { status });
        throw error;
      }
      const fault = faultOf(env);
      if (fault) throw faultError(fault, status);
      if (status !== 200) throw new AmtError('AMT_ERR_HTTP_STATUS', `${key} answered HTTP ${status}`, { status });
      return env;
    }
    throw new AmtError('AMT_ERR_HTTP_STATUS', `${key} answered HTTP ${status}`, { status });
  }
}
