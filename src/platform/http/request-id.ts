import type { IncomingMessage } from 'node:http';
import { newUlid } from '../ids/index.js';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id of a request: the caller's X-Request-Id when it is a plain token of at most 128
 * characters (so a trace crosses services), else a new ULID. It is sent back as X-Request-Id and
 * in meta.requestId of every envelope.
 */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : newUlid();
}
