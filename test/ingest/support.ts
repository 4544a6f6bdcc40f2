import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { signRequest } from '../../src/client/signing.js';
import { computeItemChecksum } from '../../src/client/checksum.js';
import { runNodectl } from '../helpers/cli.js';

export interface Connector { id: string; token: string }

/** Creates a connector through the real CLI. */
export async function createTestConnector(dataDir: string, websiteId: string, sourceTypes = 'page,post'): Promise<Connector> {
  const run = await runNodectl(['--json', 'admin', 'connector', 'create', '--website', websiteId, '--type', 'test', '--source-types', sourceTypes], { dataDir });
  if (run.exitCode !== 0) throw new Error(run.stderr);
  return run.json<Connector>();
}

export interface SignedPostOptions {
  token: string;
  websiteId: string;
  /** Raw body bytes; default JSON of `body`. */
  raw?: string | Buffer;
  body?: unknown;
  timestampOffset?: number;
  nonce?: string;
  idempotencyKey?: string | null;
  headers?: Record<string, string>;
  /** Mutates the signed headers before sending (tampering tests). */
  tamper?: (headers: Record<string, string>) => void;
  /** Body actually sent when different from the signed one. */
  sendRaw?: string | Buffer;
  siteDomain?: string;
}

export interface Answer { status: number; headers: Record<string, string | string[] | undefined>; json: any }

/** Signs and POSTs one ingest request the way a connector would, with knobs to break it. */
export async function signedPost(baseUrl: string, path: string, o: SignedPostOptions): Promise<Answer> {
  const raw = o.raw ?? JSON.stringify(o.body);
  const signed: Record<string, string> = { ...signRequest({ token: o.token, websiteId: o.websiteId, path, body: raw, timestamp: Math.floor(Date.now() / 1000) + (o.timestampOffset ?? 0), nonce: o.nonce ?? randomUUID() }) };
  o.tamper?.(signed);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...signed, ...o.headers };
  if (o.idempotencyKey !== null) headers['idempotency-key'] = o.idempotencyKey ?? randomUUID();
  if (o.siteDomain) headers['x-site-domain'] = o.siteDomain;
  const res = await request(baseUrl + path, { method: 'POST', headers, body: o.sendRaw ?? raw });
  const text = await res.body.text();
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.statusCode, headers: res.headers, json };
}

/** A valid page item of example.com with the reference checksum. */
export function pageItem(id: string, text = `text of ${id}`, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = { type: 'page', id, url: `https://example.com/${encodeURIComponent(id)}`, text, ...extra };
  return { ...base, checksum: computeItemChecksum(base as never) };
}
