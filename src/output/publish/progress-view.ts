import { createElement as h } from 'react';
import type { PublishProgress } from './progress.js';

/** Plain lines on stderr, one per step (not a TTY, or --json). */
export function createPlainPublishProgress(
  write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): PublishProgress {
  let current = '';
  let uploaded = 0;
  let carried = 0;
  return {
    step(step, total) {
      if (current === 'upload' || current === 'patch') write(`  ${uploaded} uploaded, ${carried} carried forward`);
      current = step;
      uploaded = 0;
      carried = 0;
      if (step === 'compile') write('compile: building the node from the graph');
      else if (step !== 'done') write(`${step}: ${total} object(s)`);
    },
    advance(_path, state) {
      if (state === 'uploaded') uploaded++;
      else if (state === 'carried') carried++;
    },
    stop() {},
  };
}

function bar(done: number, total: number, width = 24): string {
  // Nothing known yet (0 of 0, or a compile that does not count): an empty bar, never a full one.
  const filled = total <= 0 ? 0 : Math.min(width, Math.floor((done / total) * width));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** An ink view: the step, a bar and the uploaded / carried-forward counters, on stderr. */
export async function createInkPublishProgress(): Promise<PublishProgress> {
  const { render, Box, Text } = await import('ink');
  const state = { step: 'check', done: 0, total: 0, uploaded: 0, carried: 0, last: '' };
  const view = () =>
    h(
      Box,
      { flexDirection: 'column' },
      h(
        Text,
        null,
        h(Text, { bold: true }, state.step.padEnd(7)),
        ` ${bar(state.done, state.total)} ${state.total > 0 ? `${state.done} of ${state.total}` : '...'}`,
      ),
      h(
        Text,
        null,
        h(Text, { color: 'green' }, `uploaded ${state.uploaded}`),
        '  ',
        h(Text, { color: 'cyan' }, `carried forward ${state.carried}`),
        h(Text, { dimColor: true }, `  ${state.last}`),
      ),
    );
  const instance = render(view(), { stdout: process.stderr, patchConsole: false, exitOnCtrlC: false });
  return {
    step(step, total) {
      Object.assign(state, { step, total, done: 0 });
      instance.rerender(view());
    },
    advance(path, s) {
      state.done++;
      state.last = path;
      if (s === 'uploaded') state.uploaded++;
      if (s === 'carried') state.carried++;
      instance.rerender(view());
    },
    stop() {
      instance.unmount();
    },
  };
}
