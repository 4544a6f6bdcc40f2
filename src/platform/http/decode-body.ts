import { isAscii } from 'node:buffer';
import { AppError } from '../errors/app-error.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text of a JSON body. Invalid UTF-8 is refused with 422 validation.failed naming the first bad
 * byte: a lenient decoder would turn it into U+FFFD and store text the client never sent. Pure
 * ASCII (the usual JSON) takes the cheaper one-byte decoder, same string.
 */
export function decodeUtf8Body(raw: Buffer): string {
  if (isAscii(raw)) return raw.toString('latin1');
  try {
    return strictUtf8.decode(raw);
  } catch {
    const offset = firstInvalidUtf8Offset(raw);
    throw new AppError(
      'validation.failed',
      `The body is not valid UTF-8 (bad byte at offset ${offset}): send JSON text encoded as UTF-8.`,
      {
        details: { fields: [{ path: '(body)', message: `invalid UTF-8 byte sequence at byte offset ${offset}` }] },
      },
    );
  }
}

/** Offset of the first byte that starts no valid UTF-8 sequence (RFC 3629: no overlongs, surrogates or values past U+10FFFF). */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // Sequence length, and the range of the second byte that rules out overlongs and surrogates.
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      length = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (i + length > bytes.length) return i;
    const second = bytes[i + 1]!;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return bytes.length;
}
