import type { FastifyRequest } from 'fastify';
import type { Settings } from '../config/settings.js';

export interface ConnectionTimeouts {
  headersMs: number;
  bodyMs: number;
  ingestBodyMs: number;
  /** Node's whole-request limit: headers plus the longest body time, so the body timers answer first. */
  requestMs: number;
  checkEveryMs: number;
}

/** The daemon's connection clocks from the settings (headersTimeoutMs, bodyTimeoutMs, ingestBodyTimeoutMs). */
export function connectionTimeouts(
  settings: Pick<Settings, 'headersTimeoutMs' | 'bodyTimeoutMs' | 'ingestBodyTimeoutMs'>,
): ConnectionTimeouts {
  const headersMs = settings.headersTimeoutMs;
  const requestMs = headersMs + Math.max(settings.bodyTimeoutMs, settings.ingestBodyTimeoutMs);
  // Node checks expired connections on an interval (30 s by default): check often enough that
  // the headers timeout is kept within a quarter of itself.
  const checkEveryMs = Math.max(10, Math.min(1000, Math.floor(headersMs / 4)));
  return {
    headersMs,
    bodyMs: settings.bodyTimeoutMs,
    ingestBodyMs: settings.ingestBodyTimeoutMs,
    requestMs,
    checkEveryMs,
  };
}

/**
 * Calls `onTimeout` when the body has not fully arrived `limitMs` after the headers (a client that
 * sends half a body would otherwise hold a connection and a request open indefinitely).
 */
export function armBodyTimer(request: FastifyRequest, limitMs: number, onTimeout: () => void): void {
  const timer = setTimeout(() => {
    if (!request.raw.complete) onTimeout();
  }, limitMs);
  const clear = (): void => clearTimeout(timer);
  request.raw.once('end', clear).once('close', clear);
}
