import { createHash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * node_version (docs/contract.md#published-layout): a ULID whose 48-bit time part is the build time and
 * whose 80-bit random part is the first 80 bits of the content digest, so a frozen build time
 * and identical content give the same ULID, while any content change gives a new one.
 */
export function nodeVersionUlid(buildTimeMs: number, contentDigestHex: string): string {
  if (!Number.isSafeInteger(buildTimeMs) || buildTimeMs < 0 || buildTimeMs > 2 ** 48 - 1)
    throw new RangeError(`build time out of ULID range: ${buildTimeMs}`);
  if (!/^[0-9a-f]{20,}$/.test(contentDigestHex))
    throw new Error('content digest must be at least 80 bits of lowercase hex');
  let time = '';
  let t = buildTimeMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  // 80 bits = 16 base32 characters of 5 bits each, read from 20 hex digits.
  let bits = BigInt('0x' + contentDigestHex.slice(0, 20));
  let random = '';
  for (let i = 0; i < 16; i++) {
    random = CROCKFORD[Number(bits & 31n)]! + random;
    bits >>= 5n;
  }
  return time + random;
}

/** The time a ULID carries, in ms since the epoch. */
export function ulidTime(ulid: string): number {
  let t = 0;
  for (const ch of ulid.slice(0, 10)) t = t * 32 + CROCKFORD.indexOf(ch);
  return t;
}

/**
 * The content digest: sha256 over the sorted "path checksum" lines of every file that does not
 * itself carry the version (manifest.json, versions.json, openapi.json).
 */
export function contentDigest(files: ReadonlyArray<{ path: string; checksum: string }>): string {
  const lines = files.map((f) => `${f.path} ${f.checksum}\n`).sort();
  return createHash('sha256').update(lines.join('')).digest('hex');
}

/**
 * node_version_label `YYYY-MM-DD.N`: the build date (UTC) and that day's sequence number, one
 * more than the previous version's when it was built the same day, else 1.
 */
export function nodeVersionLabel(buildTime: string, previousLabel: string | null): string {
  const day = buildTime.slice(0, 10);
  const match = previousLabel === null ? null : /^(\d{4}-\d{2}-\d{2})\.(\d+)$/.exec(previousLabel);
  const sequence = match !== null && match[1] === day ? Number(match[2]) + 1 : 1;
  return `${day}.${sequence}`;
}

/** The build time of a compile that starts at `ms`: UTC, whole seconds (…Z), as node files carry it. */
export function buildTimeAt(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Validates and normalises an RFC 3339 build time to UTC with second precision (…Z), and gives its ms. */
export function parseBuildTime(buildTime: string): { iso: string; ms: number } {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(buildTime))
    throw new Error(`build time must be RFC 3339, e.g. 2026-01-31T12:00:00Z (got ${JSON.stringify(buildTime)})`);
  const ms = Date.parse(buildTime);
  if (Number.isNaN(ms)) throw new Error(`build time is not a valid date: ${buildTime}`);
  const iso = new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
  return { iso, ms };
}
