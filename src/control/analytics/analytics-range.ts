import { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/app-error.js';

/** Days answered when no range is given, ending today (UTC). */
export const DEFAULT_DAYS = 30;
/** The longest range answered, in days. */
export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** 2026-02-30 parses (as March 2nd): a date is real when it prints back the same. */
function isCalendarDate(text: string): boolean {
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

const DateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(isCalendarDate, 'must be a real calendar date');
export const AnalyticsRangeSchema = z.object({
  from: DateSchema.optional().describe('The first UTC day, YYYY-MM-DD; default 29 days before to'),
  to: DateSchema.optional().describe(
    'The last UTC day, YYYY-MM-DD; default today, or 29 days after from (not past today)',
  ),
});

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The UTC days an analytics read covers (the route's query and `nodectl analytics` flags): the
 * last 30 days up to today by default, 30 days from `from` when only it is given, at most 366.
 * Bad input is 422 validation.failed naming the field.
 */
export function resolveAnalyticsRange(input: unknown, nowMs: number): { from: string; to: string } {
  const parsed = AnalyticsRangeSchema.safeParse(input ?? {});
  if (!parsed.success)
    throw new AppError('validation.failed', 'The date range is not valid; see details.fields.', {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  const to =
    parsed.data.to ??
    (parsed.data.from
      ? dayOf(Math.min(Date.parse(`${parsed.data.from}T00:00:00Z`) + (DEFAULT_DAYS - 1) * DAY_MS, nowMs))
      : dayOf(nowMs));
  const from = parsed.data.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * DAY_MS);
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (span < 1)
    throw new AppError('validation.failed', `from (${from}) is after to (${to}).`, {
      details: { fields: [{ path: 'from', message: 'must not be after to' }] },
    });
  if (span > MAX_DAYS)
    throw new AppError('validation.failed', `The range holds ${span} days; ask for at most ${MAX_DAYS}.`, {
      details: { fields: [{ path: 'to', message: `must be at most ${MAX_DAYS - 1} days after from` }] },
    });
  return { from, to };
}
