import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../errors/registry.js';

/** The contract's response envelope (docs/contract.md#envelope). */
export interface SuccessEnvelope<T> {
  ok: true;
  data: T;
  meta: { requestId: string; cursor?: string };
}

export interface ErrorEnvelope {
  ok: false;
  error: { code: ErrorCode; message: string; details: Record<string, unknown>; retryable: boolean };
  meta: { requestId: string };
}

export function successEnvelope<T>(request: FastifyRequest, data: T, cursor?: string): SuccessEnvelope<T> {
  return { ok: true, data, meta: cursor === undefined ? { requestId: request.id } : { requestId: request.id, cursor } };
}

export function errorEnvelope(
  request: FastifyRequest,
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): ErrorEnvelope {
  return {
    ok: false,
    error: { code, message, details, retryable: ERROR_CODES[code].retryable },
    meta: { requestId: request.id },
  };
}

/** Sends an AppError in the envelope, with Retry-After where the code is retryable. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
  return reply.code(error.status).send(errorEnvelope(request, error.code, error.message, error.details ?? {}));
}

/** Replies 200 (or the given status) with data in the envelope. */
export function sendData<T>(request: FastifyRequest, reply: FastifyReply, data: T, status = 200): FastifyReply {
  return reply.code(status).send(successEnvelope(request, data));
}
