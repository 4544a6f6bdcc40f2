import { cliIo } from './io.js';

/** The narrowest terminal a progress bar is drawn in; below it (or 0, or unknown) plain lines are printed. */
export const MIN_BAR_COLUMNS = 20;

/**
 * Whether to draw a live progress bar: only on a real terminal (stderr a TTY) that is at least
 * MIN_BAR_COLUMNS wide, and never under --json. Elsewhere (a pipe, a CI log, a zero-width pty)
 * progress is printed as plain lines.
 */
export function wantsProgressBar(
  json: boolean,
  stream: { isTTY?: boolean; columns?: number } = cliIo().stderr,
): boolean {
  return !json && stream.isTTY === true && (stream.columns ?? 0) >= MIN_BAR_COLUMNS;
}

/** A bar of `width` cells for done of total; empty while nothing is known (0 of 0), never full. */
export function formatBar(done: number, total: number, width: number): string {
  const cells = Math.max(1, Math.floor(width));
  const filled = total <= 0 ? 0 : Math.max(0, Math.min(cells, Math.floor((done / total) * cells)));
  return '█'.repeat(filled) + '░'.repeat(cells - filled);
}

/** The bar's width for a terminal of `columns`, leaving room for the counters after it. */
export function barWidth(columns: number | undefined, reserved = 50): number {
  return Math.max(10, Math.min(30, (columns ?? 80) - reserved));
}
