import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorEnvelope, successEnvelope } from './envelope.js';
import { toAppError } from './errors.js';

/** A comment line keeps an idle stream open through proxies that close silent connections. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Whether the request's Accept header asks for text/event-stream (with a q above 0). A wildcard
 * does not count: the stream is opt-in, every other client gets the plain JSON answer.
 */
export function wantsEventStream(accept: string | string[] | undefined): boolean {
  const header = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return header.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/event-stream') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** One Server-Sent Event: its name and its data as one line of JSON. */
export function formatServerSentEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Answers a long piece of work as Server-Sent Events: `progress` events while it runs, then one
 * `result` event whose data is the envelope sendData would have sent, or one `error` event with
 * the error envelope and, in meta.status, the status the plain answer would have had. The answer
 * (200) starts with the first progress event: a failure before it (a refusal, a lock held) is a
 * plain HTTP error with its own status, as without the stream. A client that goes away does
 * not stop the work.
 */
export async function sendEventStream<R>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: (progress: (data: unknown) => void) => Promise<R>,
): Promise<FastifyReply> {
  const stream = new PassThrough();
  // A write after the client left is dropped, never thrown.
  stream.on('error', () => {});
  const write = (text: string) => {
    if (!stream.destroyed && !stream.writableEnded) stream.write(text);
  };
  let opened = false;
  let open!: () => void;
  const opening = new Promise<void>((resolve) => (open = resolve));
  const work = run((data) => {
    write(formatServerSentEvent('progress', data));
    opened = true;
    open();
  });
  await Promise.race([opening, work.then(noop, noop)]);
  // Failed before any progress: the plain error answer (the error handler sends it).
  if (!opened) await work;

  const keepAlive = setInterval(() => write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  void work
    .then(
      (data) => write(formatServerSentEvent('result', successEnvelope(request, data))),
      (error: unknown) => {
        const appError = toAppError(error);
        if (appError.code === 'internal.error') request.log.error({ err: error }, 'unexpected error');
        else if (appError !== error && appError.code === 'service.storage_unavailable')
          request.log.error({ err: error }, 'storage fault: the data directory cannot take the write');
        const envelope = errorEnvelope(request, appError.code, appError.message, appError.details ?? {});
        write(formatServerSentEvent('error', { ...envelope, meta: { ...envelope.meta, status: appError.status } }));
      },
    )
    .catch((error: unknown) => request.log.error({ err: error }, 'the event stream could not be finished'))
    .finally(() => {
      clearInterval(keepAlive);
      stream.end();
    });
  return reply
    .code(200)
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-accel-buffering', 'no')
    .send(stream);
}

function noop(): void {}
