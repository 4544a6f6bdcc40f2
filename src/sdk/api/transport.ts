import { request, type Dispatcher } from 'undici';
import { NODECTL_VERSION } from '../../platform/config/index.js';
import type { ErrorCode } from '../../platform/errors/index.js';
import { parseRetryAfter } from '../client/index.js';
import { ApiError } from './errors.js';
import { ServerSentEventParser, type ServerSentEvent } from './event-stream.js';
import { isSafeToRetry, networkCodeOf, retryDelayMs, retryPolicyOf } from './retry.js';

/** How the client proves who it is: an organization API key, or a user's access token. */
export type ApiCredential = { readonly apiKey: string } | { readonly accessToken: string };

export interface TransportOptions {
  /** The daemon's origin, e.g. http://127.0.0.1:8787 (a path after it is ignored). */
  readonly url: string;
  readonly credential?: ApiCredential;
  /**
   * How long one call may wait for the answer's headers, then for its
   * body, in ms; default 300000 (a publish compiles before it answers).
   */
  readonly timeoutMs?: number;
  /** undici dispatcher (connection pool, proxy); default the global one. */
  readonly dispatcher?: Dispatcher;
  /**
   * Retries of a call after a failure that is safe to repeat (src/sdk/api/retry.ts); default 2, 0 turns retrying off.
   */
  readonly retries?: number;
  /**
   * Backoff before retry n when the answer sent no Retry-After: a random
   * wait between half and all of retryBaseMs * 2^(n-1) ms; default 500.
   */
  readonly retryBaseMs?: number;
  /**
   * The longest wait before a retry, in ms, Retry-After included; default
   * 30000. An answer whose Retry-After asks for longer fails the call at once.
   */
  readonly maxRetryDelayMs?: number;
  /** Called before each retry (progress lines, logs). */
  readonly onRetry?: (retry: ApiRetry) => void;
  /** Waits before a retry; default a timer. Tests pass one that records the delay and returns at once. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Statuses a proxy or gateway answers with its own page while
 * the daemon is unreachable, busy, or rate limited at the proxy.
 */
const GATEWAY_STATUSES = new Set([429, 502, 503, 504]);

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Query = Record<string, string | number | boolean | undefined>;

/**
 * One call: method, path (/v1/...), optional query and JSON body. Resolves to the envelope's data
 * (undefined for 204). With `onEvent` the call asks for text/event-stream: each event but the
 * last goes to onEvent, and the last (`result`: the envelope; `error`: the error envelope with
 * its status in meta.status) settles the call as the plain answer would have. A daemon that
 * answers JSON instead is read as usual.
 */
export type Call = <T>(
  method: Method,
  path: string,
  options?: { query?: Query; body?: unknown; onEvent?: (event: ServerSentEvent) => void },
) => Promise<T>;

interface Envelope {
  ok?: unknown;
  data?: unknown;
  error?: { code?: unknown; message?: unknown; details?: unknown; retryable?: unknown };
  meta?: { requestId?: unknown };
}

/** `/v1/websites/${id}` with each path parameter encoded. */
export function pathOf(strings: TemplateStringsArray, ...params: string[]): string {
  return strings.reduce((path, part, i) => path + part + (i < params.length ? encodeURIComponent(params[i]!) : ''), '');
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A retry about to happen: which one (1 = the first), the wait before it, and the failure it answers. */
export interface ApiRetry {
  readonly retry: number;
  readonly delayMs: number;
  readonly error: ApiError;
}

/**
 * The HTTP side of the typed client: undici requests with the credential, JSON bodies, and the
 * contract envelope unwrapped: its data, or an ApiError carrying its code, message, details,
 * status and request id. A failure that is safe to repeat is retried (src/sdk/api/retry.ts: 429,
 * nothing sent, and for GET a network failure or a retryable answer), after Retry-After or a
 * capped exponential backoff with jitter; the error of the last attempt is the one thrown.
 */
export function createTransport(options: TransportOptions): Call {
  const origin = new URL(options.url).origin;
  const timeout = options.timeoutMs ?? 300_000;
  const policy = retryPolicyOf(options);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const auth: Record<string, string> = !options.credential
    ? {}
    : 'apiKey' in options.credential
      ? { 'x-api-key': options.credential.apiKey }
      : { authorization: `Bearer ${options.credential.accessToken}` };

  /** One attempt: the envelope's data, or the ApiError of its failure. */
  async function attempt<T>(
    method: Method,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    attempts: number,
    onEvent: ((event: ServerSentEvent) => void) | undefined,
  ): Promise<T> {
    let answer: Dispatcher.ResponseData | undefined;
    let text: string;
    let status: number;
    let streaming = false;
    try {
      answer = await request(url, {
        method,
        headers,
        body,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
      if (onEvent && answer.statusCode === 200 && isEventStream(answer.headers['content-type'])) {
        streaming = true;
        ({ status, text } = await readEventStream(answer.body, onEvent));
      } else {
        status = answer.statusCode;
        text = await answer.body.text();
      }
    } catch (error) {
      const reason = networkCodeOf(error) ?? (error as Error).message;
      const requestId = answer === undefined ? undefined : headerText(answer.headers['x-request-id']);
      // A stream cut after it started: the daemon was reached and may have done the work.
      throw new ApiError({
        code: 'network.error',
        status: 0,
        message: streaming
          ? `${origin} answered ${method} ${url.pathname} with an event stream that broke off before its result (${reason}); the work may have finished: check before repeating it`
          : `cannot reach ${origin}: ${reason}`,
        retryable: true,
        attempts,
        cause: error,
        ...(streaming && requestId !== undefined ? { requestId } : {}),
      });
    }
    const requestId = headerText(answer.headers['x-request-id']);
    // A 204 has no envelope to tell a daemon by; every answer of one carries X-Api-Version.
    if (status === 204 && answer.headers['x-api-version'] !== undefined) return undefined as T;
    let envelope: Envelope | undefined;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      envelope = undefined;
    }
    if (envelope?.ok === true) return envelope.data as T;
    const error = envelope?.ok === false ? envelope.error : undefined;
    const retryAfter = parseRetryAfter(answer.headers['retry-after']);
    if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') {
      // A proxy in front of the daemon answers with its own page: 502, 503 and 504 say the
      // daemon is unreachable or busy, 429 that the proxy refused the request; worth another try.
      const fromGateway = GATEWAY_STATUSES.has(status);
      throw new ApiError({
        code: 'response.invalid',
        status: status,
        requestId,
        attempts,
        retryable: fromGateway,
        message: fromGateway
          ? `${origin} answered ${method} ${url.pathname} with ${status} and no nodectl envelope: a proxy in front of the daemon could not reach it or refused the request`
          : `${origin} answered ${method} ${url.pathname} with ${status} and no nodectl envelope; is it a nodectl daemon?`,
        ...(fromGateway && retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
      });
    }
    throw new ApiError({
      code: error.code as ErrorCode,
      message: error.message,
      status: status,
      details:
        typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {},
      retryable: error.retryable === true,
      requestId: typeof envelope?.meta?.requestId === 'string' ? envelope.meta.requestId : requestId,
      attempts,
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    });
  }

  return async <T>(
    method: Method,
    path: string,
    call: { query?: Query; body?: unknown; onEvent?: (event: ServerSentEvent) => void } = {},
  ): Promise<T> => {
    const url = new URL(path, origin);
    for (const [name, value] of Object.entries(call.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      accept: call.onEvent ? 'text/event-stream, application/json;q=0.5' : 'application/json',
      'user-agent': `nodectl-api/${NODECTL_VERSION}`,
      ...auth,
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt<T>(method, url, headers, body, attempts, call.onEvent);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const delayMs =
          attempts <= policy.retries && isSafeToRetry(method, error)
            ? retryDelayMs(policy, attempts, error)
            : undefined;
        if (delayMs === undefined) throw error;
        options.onRetry?.({ retry: attempts, delayMs, error });
        await sleep(delayMs);
      }
    }
  };
}

function isEventStream(contentType: string | string[] | undefined): boolean {
  return /^text\/event-stream\b/i.test(headerText(contentType) ?? '');
}

/**
 * Reads an event stream to its last event: `progress` and other events go to onEvent; `result`
 * is the 200 answer's envelope, `error` the error envelope with the status in meta.status. A
 * stream that ends without either fails like a cut connection.
 */
async function readEventStream(
  body: AsyncIterable<Uint8Array>,
  onEvent: (event: ServerSentEvent) => void,
): Promise<{ status: number; text: string }> {
  const parser = new ServerSentEventParser();
  let last: { status: number; text: string } | undefined;
  const take = (events: ServerSentEvent[]) => {
    for (const event of events) {
      if (last) return;
      if (event.event === 'result') last = { status: 200, text: event.data };
      else if (event.event === 'error') last = { status: statusOfErrorEvent(event.data), text: event.data };
      else onEvent(event);
    }
  };
  for await (const chunk of body) take(parser.push(chunk));
  take(parser.end());
  if (!last) throw new Error('the event stream ended before its result');
  return last;
}

/** meta.status of an error event's envelope; 500 when it names none. */
function statusOfErrorEvent(data: string): number {
  try {
    const status = (JSON.parse(data) as Envelope & { meta?: { status?: unknown } }).meta?.status;
    return typeof status === 'number' && Number.isInteger(status) ? status : 500;
  } catch {
    return 500;
  }
}
