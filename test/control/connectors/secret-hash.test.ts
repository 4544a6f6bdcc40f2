import { describe, expect, it } from 'vitest';
import {
  hashConnectorSecret,
  matchConnectorSecret,
  RETIRED_SECRETS_KEPT,
  type StoredSecret,
} from '../../../src/control/connectors/index.js';

/** matchConnectorSecret tells the current secret, a rotated-away one and any other apart (docs/decisions.md). */

const key = new Uint8Array(32).fill(7);
const id = 'conn_01JD2Q7Z3K4M5N6P7Q8R9S0T1V';
const stored = (tokenVersion: number, secret: string): StoredSecret => ({
  tokenVersion,
  secretHash: hashConnectorSecret(key, id, tokenVersion, secret),
});

describe('matchConnectorSecret', () => {
  const current = stored(3, 'third');
  const retired = [stored(2, 'second'), stored(1, 'first')];

  it('the current secret is current, a retired one retired, anything else none', () => {
    expect(matchConnectorSecret(key, id, 'third', current, retired)).toBe('current');
    expect(matchConnectorSecret(key, id, 'second', current, retired)).toBe('retired');
    expect(matchConnectorSecret(key, id, 'first', current, retired)).toBe('retired');
    expect(matchConnectorSecret(key, id, 'guess', current, retired)).toBe('none');
  });

  it('a retired hash is bound to its own version: the same secret under another version matches nothing', () => {
    expect(matchConnectorSecret(key, id, 'second', current, [{ ...retired[0]!, tokenVersion: 1 }])).toBe('none');
  });

  it('an unknown connector (no current hash) is never current nor retired', () => {
    expect(matchConnectorSecret(key, id, 'second', undefined, retired)).toBe('none');
    expect(matchConnectorSecret(key, id, 'anything', undefined, [])).toBe('none');
  });

  it(`only the first ${RETIRED_SECRETS_KEPT} retired hashes given are checked`, () => {
    const many = Array.from({ length: RETIRED_SECRETS_KEPT + 1 }, (_, i) =>
      stored(RETIRED_SECRETS_KEPT + 1 - i, `s${i}`),
    );
    expect(matchConnectorSecret(key, id, `s${RETIRED_SECRETS_KEPT - 1}`, current, many)).toBe('retired');
    expect(matchConnectorSecret(key, id, `s${RETIRED_SECRETS_KEPT}`, current, many)).toBe('none');
  });
});
