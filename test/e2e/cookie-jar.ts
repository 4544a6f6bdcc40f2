import { fetch, getSetCookies, Headers, type RequestInit, type Response } from 'undici';

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite: string | undefined;
  /** ms since the epoch; undefined for a session cookie. */
  expiresAt: number | undefined;
}

/**
 * A small browser-like cookie jar for fetch: keeps what Set-Cookie headers set (parsed by undici),
 * honours Max-Age (0 deletes), Path (RFC 6265 path-match) and Secure (https only), and sends the
 * matching cookies back. Enough to see the svc_refresh cookie behave as a browser would keep it.
 */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  /** Stores every cookie an answer sets. */
  capture(headers: Headers, now = Date.now()): void {
    for (const cookie of getSetCookies(headers)) {
      const expiresAt =
        cookie.maxAge !== undefined
          ? now + cookie.maxAge * 1000
          : cookie.expires instanceof Date
            ? cookie.expires.getTime()
            : undefined;
      if (expiresAt !== undefined && expiresAt <= now) {
        this.cookies.delete(cookie.name);
        continue;
      }
      this.cookies.set(cookie.name, {
        name: cookie.name,
        value: cookie.value,
        path: cookie.path ?? '/',
        secure: cookie.secure === true,
        httpOnly: cookie.httpOnly === true,
        sameSite: cookie.sameSite,
        expiresAt,
      });
    }
  }

  /** The Cookie header a browser would send to `url`, or undefined. */
  headerFor(url: string, now = Date.now()): string | undefined {
    const { pathname, protocol } = new URL(url);
    const matching = [...this.cookies.values()].filter(
      (c) =>
        (c.expiresAt === undefined || c.expiresAt > now) &&
        (!c.secure || protocol === 'https:') &&
        (pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
    );
    return matching.length > 0 ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  get(name: string): StoredCookie | undefined {
    return this.cookies.get(name);
  }

  /** fetch with this jar: sends its cookies and keeps the answer's. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.headerFor(url);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers });
    this.capture(response.headers);
    return response;
  }
}
