import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { signRequest } from '../../../src/platform/contract/signing.js';
import { computeItemChecksum } from '../../../src/platform/contract/checksum.js';
import { seedConnector } from '../../helpers/seed.js';

export interface Connector {
  id: string;
  token: string;
}

/** Creates a connector of type test in the data directory, in this process (as `nodectl admin connector create` would). */
export function createTestConnector(dataDir: string, websiteId: string, sourceTypes = 'page,post'): Promise<Connector> {
  return seedConnector(dataDir, websiteId, { sourceTypes: sourceTypes.split(',') });
}

export interface SignedPostOptions {
  token: string;
  websiteId: string;
  /** Raw body bytes; default JSON of `body`. */
  raw?: string | Buffer;
  body?: unknown;
  timestampOffset?: number;
  /** The signing clock, ms since epoch; default now (pass the app's fake clock). */
  nowMs?: number;
  nonce?: string;
  idempotencyKey?: string | null;
  headers?: Record<string, string>;
  /** Mutates the signed headers before sending (tampering tests). */
  tamper?: (headers: Record<string, string>) => void;
  /** Body actually sent when different from the signed one. */
  sendRaw?: string | Buffer;
  siteDomain?: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

/** The headers and body of one ingest request as a connector signs it, with the knobs applied. */
function signedRequest(path: string, o: SignedPostOptions): { headers: Record<string, string>; body: string | Buffer } {
  const raw = o.raw ?? JSON.stringify(o.body);
  const signed: Record<string, string> = {
    ...signRequest({
      token: o.token,
      websiteId: o.websiteId,
      path,
      body: raw,
      timestamp: Math.floor((o.nowMs ?? Date.now()) / 1000) + (o.timestampOffset ?? 0),
      nonce: o.nonce ?? randomUUID(),
    }),
  };
  o.tamper?.(signed);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...signed, ...o.headers };
  if (o.idempotencyKey !== null) headers['idempotency-key'] = o.idempotencyKey ?? randomUUID();
  if (o.siteDomain) headers['x-site-domain'] = o.siteDomain;
  return { headers, body: o.sendRaw ?? raw };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Signs and POSTs one ingest request the way a connector would, with knobs to break it. */
export async function signedPost(baseUrl: string, path: string, o: SignedPostOptions): Promise<Answer> {
  const { headers, body } = signedRequest(path, o);
  const res = await request(baseUrl + path, { method: 'POST', headers, body });
  return { status: res.statusCode, headers: res.headers, json: parsed(await res.body.text()) };
}

/** signedPost through Fastify's inject(): the same request, in process. */
export async function signedInject(app: FastifyInstance, path: string, o: SignedPostOptions): Promise<Answer> {
  const { headers, body } = signedRequest(path, o);
  const res = await app.inject({ method: 'POST', url: path, headers, payload: body });
  return { status: res.statusCode, headers: res.headers as Answer['headers'], json: parsed(res.body) };
}

/** A valid page item of example.com with the reference checksum. */
export function pageItem(
  id: string,
  text = `text of ${id}`,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const base = { type: 'page', id, url: `https://example.com/${encodeURIComponent(id)}`, text, ...extra };
  return { ...base, checksum: computeItemChecksum(base as never) };
}
