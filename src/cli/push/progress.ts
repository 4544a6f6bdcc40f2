import { createElement as h } from 'react';
import { barWidth, formatBar } from '../terminal.js';
import { cliIo } from '../io.js';

/** Counters of one push (or of everything a watch session pushed). */
export interface PushSummary {
  /** Items read from the source (files that mapped, or .jsonl lines). */
  total: number;
  /** Items the daemon acknowledged (accepted + skipped + errored). */
  received: number;
  accepted: number;
  skipped: number;
  errored: number;
  deleted: number;
  notFound: number;
  failedRequests: number;
  /** Items never acknowledged: the push stopped at a failed request. */
  notSent: number;
  /** Why they were not sent: the failed request's error, `[code] message`. */
  notSentReason: string | null;
}

export function emptySummary(): PushSummary {
  return {
    total: 0,
    received: 0,
    accepted: 0,
    skipped: 0,
    errored: 0,
    deleted: 0,
    notFound: 0,
    failedRequests: 0,
    notSent: 0,
    notSentReason: null,
  };
}

/** Where push reports progress: an ink bar on a terminal, plain lines otherwise. */
export interface PushProgress {
  /** `done`: items the daemon acknowledged so far, of `total` read. */
  update(done: number, total: number, summary: PushSummary): void;
  note(line: string): void;
  stop(): void;
}

/** Plain stderr lines (not a TTY, or --json). */
export function createPlainProgress(
  write: (line: string) => void = (l) => void cliIo().stderr.write(l + '\n'),
): PushProgress {
  return {
    update(done, total, s) {
      write(formatPushProgressLine(done, total, s));
    },
    note: write,
    stop() {},
  };
}

/** One plain progress line: `pushed 500 of 2000: accepted 498, skipped 2, errored 0`. */
export function formatPushProgressLine(done: number, total: number, s: PushSummary): string {
  return `pushed ${done} of ${total}: accepted ${s.accepted}, skipped ${s.skipped}, errored ${s.errored}`;
}

/**
 * The last line of a push: what was acknowledged of what was read, and, when the push stopped
 * early, how many items were not sent and why.
 */
export function formatPushSummary(s: PushSummary): string {
  const counts = `accepted ${s.accepted}, skipped ${s.skipped}, errored ${s.errored}${s.deleted || s.notFound ? `, deleted ${s.deleted}, not found ${s.notFound}` : ''}${s.failedRequests ? `, failed requests ${s.failedRequests}` : ''}`;
  const head =
    s.notSent > 0
      ? `pushed ${s.received} of ${s.total}; ${s.notSent} not sent: ${s.notSentReason ?? 'the push stopped'}`
      : `pushed ${s.received} of ${s.total}`;
  return `${head}\n${counts}`;
}

/** An ink progress bar with live counters (rendered on stderr). */
export async function createInkProgress(): Promise<PushProgress> {
  const { render, Box, Text } = await import('ink');
  const view = (done: number, total: number, s: PushSummary, notes: string[]) =>
    h(
      Box,
      { flexDirection: 'column' },
      ...notes.slice(-5).map((n, i) => h(Text, { key: `n${i}`, dimColor: true }, n)),
      h(
        Text,
        null,
        `${formatBar(done, total, barWidth(cliIo().stderr.columns))} ${done} of ${total}  `,
        h(Text, { color: 'green' }, `accepted ${s.accepted}`),
        '  ',
        h(Text, { color: 'yellow' }, `skipped ${s.skipped}`),
        '  ',
        h(Text, { color: s.errored ? 'red' : undefined }, `errored ${s.errored}`),
      ),
    );
  let state = { done: 0, total: 0, summary: emptySummary(), notes: [] as string[] };
  const instance = render(view(0, 0, state.summary, []), {
    stdout: cliIo().stderr as NodeJS.WriteStream,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  return {
    update(done, total, summary) {
      state = { ...state, done, total, summary: { ...summary } };
      instance.rerender(view(state.done, state.total, state.summary, state.notes));
    },
    note(line) {
      state.notes = [...state.notes, line];
      instance.rerender(view(state.done, state.total, state.summary, state.notes));
    },
    stop() {
      instance.unmount();
    },
  };
}
