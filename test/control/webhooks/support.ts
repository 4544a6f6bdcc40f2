import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import type { AppServices } from '../../../src/platform/app/services.js';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { JobWorker, laneConcurrency, type WorkerOptions } from '../../../src/platform/job-runtime/job-worker.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { injectJson, type InjectAnswer, type TestApp } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';

/** One request a receiver got: what a webhook consumer sees. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** The app clock when it arrived (ms): what the signature's timestamp is checked against. */
  clockMs: number;
  startedAt: number;
  /** When the receiver answered (performance.now()), or undefined while it is held. */
  answeredAt?: number;
}

export interface ReceiverAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Never answer: the request is held until the receiver closes (or the sender gives up), as slow a receiver as there is. */
  hold?: boolean;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** How the receiver answers from now on. */
  answer(fn: (request: IncomingMessage, count: number) => ReceiverAnswer): void;
  inFlight(): number;
  /** Emits 'request' as each request has arrived (after it is in `received`): what a test waits on. */
  events: EventEmitter;
  /** Resolves once `condition` holds, checked at each request that arrives. */
  until(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP webhook receiver on loopback (the delivery tests turn fetchAllowPrivateAddresses on). */
export async function startReceiver(clock: () => number = Date.now, path = '/hooks'): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  let answer: (request: IncomingMessage, count: number) => ReceiverAnswer = () => ({ status: 204 });
  let open = 0;
  const events = new EventEmitter();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: ReceivedWebhook = {
        headers: request.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
        clockMs: clock(),
        startedAt: performance.now(),
      };
      received.push(entry);
      const reply = answer(request, received.length);
      open++;
      events.emit('request', entry);
      const send = () => {
        open--;
        entry.answeredAt = performance.now();
        if (response.destroyed) return;
        response.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        response.end(reply.body ?? '');
      };
      if (reply.hold) {
        response.on('close', () => {
          if (!response.writableEnded) open--;
        });
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer: (fn) => void (answer = fn),
    inFlight: () => open,
    events,
    until: (condition, what, timeoutMs) => until(events, 'request', condition, what, timeoutMs),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Verifies one received webhook with the official standardwebhooks package (not nodectl's
 * signer) and returns its parsed payload; throws WebhookVerificationError when no signature
 * matches. The package checks the timestamp against Date.now(), so Date.now() is the app's clock
 * at arrival for the call (the tests run on fake clocks).
 */
export function verifyWebhook(
  secret: string,
  webhook: ReceivedWebhook,
): { id: string; type: string; created_at: string; website_id: string; data: Record<string, unknown> } {
  const spy = vi.spyOn(Date, 'now').mockReturnValue(webhook.clockMs);
  try {
    return new Webhook(secret).verify(webhook.body, webhook.headers) as ReturnType<typeof verifyWebhook>;
  } finally {
    spy.mockRestore();
  }
}

/** A worker over the app's queue with every job kind; drain() runs what is due on the app's clock. `onOutcome` hears each job's end. */
export function createWorker(services: AppServices, onOutcome?: WorkerOptions['onOutcome']): JobWorker {
  return new JobWorker(services.jobs, JOBS, services, {
    lanes: laneConcurrency(services.config.settings),
    pollMs: 10,
    onOutcome,
  });
}

/** An organization_admin API key of the organization. */
export function adminKey(services: AppServices, organizationId: string): string {
  return createApiKey(services.controlDb, { organizationId, role: 'organization_admin' }, services.now()).key;
}

/** A management request with an API key. */
export function api(
  t: Pick<TestApp, 'app'>,
  key: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
): Promise<InjectAnswer> {
  return injectJson(t.app, {
    method,
    url,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Creates a subscription over HTTP; returns its id and the secret shown once. */
export async function subscribe(
  t: Pick<TestApp, 'app'>,
  key: string,
  websiteId: string,
  body: { url: string; events: string[]; description?: string },
): Promise<{ id: string; secret: string }> {
  const res = await api(t, key, 'POST', `/v1/websites/${websiteId}/webhooks`, body);
  if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.body}`);
  return { id: res.json.data.id, secret: res.json.data.secret };
}
