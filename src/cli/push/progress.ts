import { createElement as h } from 'react';

/** Counters of one push (or of everything a watch session pushed). */
export interface PushSummary {
  received: number;
  accepted: number;
  skipped: number;
  errored: number;
  deleted: number;
  notFound: number;
  failedRequests: number;
}

export function emptySummary(): PushSummary {
  return { received: 0, accepted: 0, skipped: 0, errored: 0, deleted: 0, notFound: 0, failedRequests: 0 };
}

/** Where push reports progress: an ink bar on a terminal, plain lines otherwise. */
export interface PushProgress {
  update(done: number, total: number, summary: PushSummary): void;
  note(line: string): void;
  stop(): void;
}

/** Plain stderr lines (not a TTY, or --json). */
export function createPlainProgress(
  write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): PushProgress {
  return {
    update(done, total, s) {
      write(`pushed ${done}/${total}: accepted ${s.accepted}, skipped ${s.skipped}, errored ${s.errored}`);
    },
    note: write,
    stop() {},
  };
}

function bar(done: number, total: number, width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
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
        `${bar(done, total)} ${done}/${total}  `,
        h(Text, { color: 'green' }, `accepted ${s.accepted}`),
        '  ',
        h(Text, { color: 'yellow' }, `skipped ${s.skipped}`),
        '  ',
        h(Text, { color: s.errored ? 'red' : undefined }, `errored ${s.errored}`),
      ),
    );
  let state = { done: 0, total: 0, summary: emptySummary(), notes: [] as string[] };
  const instance = render(view(0, 0, state.summary, []), {
    stdout: process.stderr,
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
