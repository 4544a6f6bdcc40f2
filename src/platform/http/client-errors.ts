import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../errors/app-error.js';
import { newUlid } from '../ids/ulid.js';
import type { ErrorEnvelope } from './envelope.js';

/**
 * Answers written straight to the socket, for failures Node raises before or outside Fastify's
 * request lifecycle (a malformed request line, oversized headers, a client too slow to send its
 * request). They still use the contract envelope and carry one request id in the header and body.
 */

interface ActiveRequest {
  requestId: string;
  response: ServerResponse;
  method: string;
  route: string;
}

/** The request each connection is handling now, so a connection-level error reuses its id. */
const activeRequests = new WeakMap<Socket, ActiveRequest>();
/** Connections already answered: Node may report further errors from a dead parser. */
const answered = new WeakSet<Socket>();

export function trackActiveRequest(socket: Socket, active: ActiveRequest): void {
  activeRequests.set(socket, active);
}

export function untrackActiveRequest(socket: Socket, requestId: string): void {
  if (activeRequests.get(socket)?.requestId === requestId) activeRequests.delete(socket);
}

/** Maps an error Node's HTTP parser or connection checker reports to a contract error, or undefined when there is no one to answer. */
export function appErrorOfClientError(error: NodeJS.ErrnoException): AppError | undefined {
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeoutError();
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        'request.header_too_large',
        'The request line and headers are larger than 16 KiB: send a shorter URL or fewer, smaller headers.',
      );
    default:
      return new AppError(
        'request.malformed',
        'The request is not well-formed HTTP/1.1; check the request line, the header syntax and the body framing.',
      );
  }
}

export function requestTimeoutError(): AppError {
  return new AppError(
    'request.timeout',
    'The request was not received in time: send the headers and the whole body promptly, then retry.',
  );
}

export interface RawErrorAnswer {
  requestId: string;
  status: number;
  /** The method and route of the request being answered, when one had started. */
  method: string | undefined;
  route: string | undefined;
}

/**
 * Writes `error` as an enveloped HTTP/1.1 response with Connection: close, then closes the
 * connection. When the connection's current response has already begun, it is only closed.
 * Returns what was answered, or undefined when nothing could be written.
 */
export function answerOnSocket(socket: Socket, error: AppError, apiVersion: string): RawErrorAnswer | undefined {
  if (answered.has(socket) || socket.destroyed) return undefined;
  // inject() (light-my-request) hands routes a stand-in socket with no stream methods: nothing to write on or close.
  if (typeof socket.destroy !== 'function' || typeof socket.end !== 'function') return undefined;
  answered.add(socket);
  const active = activeRequests.get(socket);
  if (!socket.writable || active?.response.headersSent) {
    socket.destroy();
    return undefined;
  }
  const requestId = active?.requestId ?? newUlid();
  const envelope: ErrorEnvelope = {
    ok: false,
    error: { code: error.code, message: error.message, details: error.details ?? {}, retryable: error.retryable },
    meta: { requestId },
  };
  const body = JSON.stringify(envelope);
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    `X-Api-Version: ${apiVersion}`,
    'Connection: close',
  ];
  // The socket is closed once the answer is flushed; a peer that never reads it is cut off after 1 s.
  const forceClose = setTimeout(() => socket.destroy(), 1000);
  forceClose.unref();
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => {
    clearTimeout(forceClose);
    socket.destroy();
  });
  return { requestId, status: error.status, method: active?.method, route: active?.route };
}
