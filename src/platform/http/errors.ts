import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { AppError, fieldProblemsFromZod, isAppError, storageUnavailableError } from '../errors/index.js';
import { sendError } from './envelope.js';
import { MAX_PARAM_LENGTH } from './limits.js';

/** Past this many bytes an over-limit body is no longer read: the connection is closed instead. */
const MAX_DISCARDED_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Sends an error envelope. A body refused as too large is first read to its end and dropped (up to
 * MAX_DISCARDED_BODY_BYTES): a client still uploading would otherwise meet a closed connection
 * (EPIPE) instead of the contract's 413, and the connection can then stay open.
 */
export async function sendErrorReply(
  request: FastifyRequest,
  reply: FastifyReply,
  appError: AppError,
): Promise<FastifyReply> {
  if (appError.code === 'request.body_too_large' && (await discardRestOfBody(request.raw, MAX_DISCARDED_BODY_BYTES)))
    reply.removeHeader('connection');
  return sendError(request, reply, appError);
}

/** Resolves true when the body was read to its end, false when it was cut off past `maxBytes`. */
function discardRestOfBody(raw: IncomingMessage, maxBytes: number): Promise<boolean> {
  if (raw.readableEnded) return Promise.resolve(true);
  if (raw.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (complete: boolean): void => {
      raw.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(complete);
    };
    const onEnd = (): void => finish(true);
    const onAbort = (): void => finish(false);
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > maxBytes) finish(false);
    };
    raw.on('data', onData).once('end', onEnd).once('error', onAbort).once('close', onAbort).resume();
  });
}

/** Maps framework, zod, storage and unexpected errors to contract codes; nothing else reaches a client. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  // A full or failing disk is the operator's to mend and the client's to retry, not a bug (500).
  const storage = storageUnavailableError(error);
  if (storage) return storage;
  if (error instanceof ZodError)
    return new AppError('validation.failed', 'The request does not match the schema; see details.fields.', {
      details: { fields: fieldProblemsFromZod(error.issues) },
    });
  const fastifyError = error as { code?: string; statusCode?: number; message?: string; validation?: unknown };
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'request.body_too_large',
        'The request body is larger than this route accepts (16 MiB on /v1/ingest/*, 1 MiB elsewhere). Send smaller batches.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('request.unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('validation.failed', 'The body is empty; send a JSON object.', {
        details: { fields: [{ path: '(body)', message: 'body is empty' }] },
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return malformedJson(fastifyError.message);
    case 'FST_ERR_BAD_URL':
      return new AppError(
        'request.malformed',
        'The URL path is not valid percent-encoding: encode reserved and non-ASCII characters as %XX of their UTF-8 bytes.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(
        'request.uri_too_long',
        `A path segment is longer than ${MAX_PARAM_LENGTH} characters: no id, domain or file name is that long.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(
        'request.malformed',
        'The body is shorter or longer than its Content-Length header: send the exact length.',
      );
  }
  if (error instanceof SyntaxError || (fastifyError.statusCode === 400 && /JSON/i.test(fastifyError.message ?? '')))
    return malformedJson(fastifyError.message);
  if (fastifyError.validation)
    return new AppError('validation.failed', fastifyError.message ?? 'invalid request', {
      details: { fields: [{ path: '(request)', message: fastifyError.message ?? '' }] },
    });
  // Any other client-side failure the framework or Node reports (e.g. a body cut off mid-upload).
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError(
      'request.malformed',
      'The request could not be read: send a complete, well-formed HTTP request.',
    );
  }
  return new AppError('internal.error', 'An unexpected error happened. Quote the request id when you report it.');
}

function malformedJson(message: string | undefined): AppError {
  return new AppError('validation.failed', 'The body is not valid JSON.', {
    details: { fields: [{ path: '(body)', message: message ?? 'invalid JSON' }] },
  });
}
