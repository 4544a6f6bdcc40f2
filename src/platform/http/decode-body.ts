import { isAscii } from 'node:buffer';
import { MIMEType } from 'node:util';
import { AppError } from '../errors/index.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The labels of UTF-8 a Content-Type may name (WHATWG Encoding's, in lower case). */
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8']);

/**
 * Refuses (415 request.unsupported_media_type) a JSON body whose Content-Type names a charset
 * other than UTF-8: the bytes are decoded as UTF-8 whatever is declared, so a UTF-16 body would
 * be read as other text than the client meant. No charset is UTF-8 (RFC 8259).
 */
export function assertUtf8Charset(contentType: string | undefined): void {
  let charset: string | null | undefined;
  try {
    charset = contentType === undefined ? undefined : new MIMEType(contentType).params.get('charset');
  } catch {
    charset = contentType;
  }
  if (charset === undefined || charset === null || UTF8_LABELS.has(charset.trim().toLowerCase())) return;
  throw new AppError(
    'request.unsupported_media_type',
    `Content-Type names charset ${JSON.stringify(charset)}: send the JSON encoded as UTF-8 with Content-Type: application/json (charset=utf-8 or none).`,
  );
}

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

/**
 * Offset of the first byte that starts no valid UTF-8 sequence
 * (RFC 3629: no overlongs, surrogates or values past U+10FFFF).
 */
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
