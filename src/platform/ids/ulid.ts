import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

// The ulid package asks crypto for one byte per character (16 syscalls-worth of work per id, and
// it re-detects its PRNG on every call): profiling `nodectl serve` showed half of a /healthz
// request spent there. One pooled buffer of crypto randomness, refilled when spent, gives the
// same uniform characters at a fraction of the cost.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]! / 256;
}

/** A ULID (Crockford base32, 26 characters) for `time` (ms, default now), with crypto randomness. */
export function newUlid(time?: number): string {
  return ulid(time, pooledRandom);
}
