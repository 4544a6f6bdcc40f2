import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicBaseUrl } from '../../platform/config/config.js';
import type { Settings } from '../../platform/config/settings.js';

/** The refresh-token cookie (docs/contract.md#sessions). */
export const REFRESH_COOKIE = 'svc_refresh';
/** Sent only to the auth routes: no other route needs the refresh token. */
const REFRESH_COOKIE_PATH = '/v1/auth';

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Secure unless the service is plain http on a loopback address (a developer's machine, where a
 * browser would drop a Secure cookie set over http). Decided from the public base URL, so a daemon
 * behind a TLS proxy (publicBaseUrl https://...) always sets it.
 */
export function refreshCookieIsSecure(settings: Settings): boolean {
  const url = new URL(publicBaseUrl(settings));
  return !(url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

function cookieOptions(settings: Settings, maxAgeSeconds: number): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'strict',
    path: REFRESH_COOKIE_PATH,
    secure: refreshCookieIsSecure(settings),
    maxAge: maxAgeSeconds,
  };
}

/** Sets svc_refresh to the session's refresh token; it lives as long as the session (Max-Age). */
export function setRefreshCookie(
  reply: FastifyReply,
  settings: Settings,
  refreshToken: string,
  sessionExpiresAt: number,
  now: number,
): void {
  reply.setCookie(
    REFRESH_COOKIE,
    refreshToken,
    cookieOptions(settings, Math.max(0, Math.floor((sessionExpiresAt - now) / 1000))),
  );
}

/** Removes svc_refresh from the browser (Max-Age=0) when the session it belongs to ends. */
export function clearRefreshCookie(reply: FastifyReply, settings: Settings): void {
  reply.setCookie(REFRESH_COOKIE, '', { ...cookieOptions(settings, 0), expires: new Date(0) });
}

/** The refresh token the request presents: the body's refreshToken first, else the cookie. */
export function presentedRefreshToken(
  request: FastifyRequest,
  body: { refreshToken?: string | undefined } | undefined,
): string | undefined {
  return body?.refreshToken || request.cookies[REFRESH_COOKIE] || undefined;
}
