import { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';

/** docs/contract.md#management-api: `?limit=` 1 to 100, default 50. */
export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 100;

/** A list request: how many items, and the key of the last item of the previous page (from ?cursor). */
export interface ListQuery {
  readonly limit: number;
  readonly after: string | undefined;
}

/** A list answer (docs/contract.md#management-api); next_cursor is null on the last page. */
export interface ListPage<T> {
  items: T[];
  next_cursor: string | null;
}

const CURSOR_PREFIX = 'c1.';

/** The cursor is opaque to clients: a version tag and the base64url of the last item's key. */
function encodeCursor(key: string): string {
  return CURSOR_PREFIX + Buffer.from(key, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string | undefined {
  if (!cursor.startsWith(CURSOR_PREFIX)) return undefined;
  const body = cursor.slice(CURSOR_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(body)) return undefined;
  const key = Buffer.from(body, 'base64url').toString('utf8');
  return key.length > 0 && encodeCursor(key) === cursor ? key : undefined;
}

/** ?limit and ?cursor, for a list route's `schema.querystring` (extend it with the route's own parameters); parseListQuery then decodes the cursor. */
export const ListQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 100' })
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be at least 1')
    .max(LIST_LIMIT_MAX, `must be at most ${LIST_LIMIT_MAX}`)
    .default(LIST_LIMIT_DEFAULT),
  cursor: z.string().optional().describe('next_cursor of the previous page, unchanged'),
});

/** Reads ?limit and ?cursor (other query parameters are the route's own); 422 validation.failed for a bad one. */
export function parseListQuery(query: unknown): ListQuery {
  const parsed = ListQuerySchema.safeParse(query ?? {});
  if (!parsed.success)
    throw new AppError('validation.failed', 'The list query is not valid; see details.fields.', {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  const { limit, cursor } = parsed.data;
  if (cursor === undefined || cursor === '') return { limit, after: undefined };
  const after = decodeCursor(cursor);
  if (after === undefined)
    throw new AppError(
      'validation.failed',
      'The cursor is not one this list gave out: pass next_cursor of the previous page unchanged.',
      { details: { fields: [{ path: 'cursor', message: 'not a cursor of this list' }] } },
    );
  return { limit, after };
}

/**
 * One page from rows read with `LIMIT limit + 1` in the list's order: the extra row only tells
 * that another page follows, and the cursor names the last row kept (keyOf gives its sort key).
 */
export function pageOf<T, R = T>(
  rows: readonly T[],
  query: ListQuery,
  keyOf: (row: T) => string,
  present: (row: T) => R = (row) => row as unknown as R,
): ListPage<R> {
  const kept = rows.slice(0, query.limit);
  const next = rows.length > query.limit && kept.length > 0 ? encodeCursor(keyOf(kept[kept.length - 1]!)) : null;
  return { items: kept.map(present), next_cursor: next };
}
