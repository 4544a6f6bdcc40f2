import { createElement as h } from 'react';
import type { PublishProgressEvent, PublishProgressView } from './progress.js';

/** The longest a plain view stays silent inside one compile pass of a large site, in ms. */
export const PLAIN_COMPILE_EVERY_MS = 10_000;
/** The least time between two redraws of the bar, in ms: a large site reports often. */
const BAR_REDRAW_MS = 100;

/** One compile line: `compile: 3 of 10 passes (facts), 5000 records`. */
export function formatCompileLine(e: PublishProgressEvent): string {
  const where = e.file === undefined ? (e.pass ?? '') : `${e.pass ?? ''}, ${e.file}`;
  return `compile: ${e.done} of ${e.total} passes${where ? ` (${where})` : ''}, ${e.records ?? 0} records`;
}

/**
 * Plain lines on stderr (not a TTY): a line when a step starts, one per compile pass finished
 * with the records written so far (and, inside a long pass, at most one every
 * PLAIN_COMPILE_EVERY_MS), and the uploaded / carried-forward counts when upload or patch ends.
 */
export function createPlainPublishProgress(
  write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
  now: () => number = Date.now,
): PublishProgressView {
  let last: PublishProgressEvent | undefined;
  let lastLineAt = 0;
  const endStage = (ended: PublishProgressEvent | undefined) => {
    if (ended && (ended.stage === 'upload' || ended.stage === 'patch'))
      write(`  ${ended.uploaded ?? 0} uploaded, ${ended.carried ?? 0} carried forward`);
  };
  return {
    update(e) {
      const previous = last;
      last = e;
      if (previous?.stage !== e.stage) {
        endStage(previous);
        lastLineAt = now();
        if (e.stage === 'compile') write(`compile: ${e.total} passes over the graph`);
        else write(`${e.stage}: ${e.total} object(s)`);
        if (e.stage !== 'compile' || e.done === 0) return;
      }
      if (e.stage !== 'compile') return;
      if ((previous !== undefined && e.done > previous.done) || now() - lastLineAt >= PLAIN_COMPILE_EVERY_MS) {
        lastLineAt = now();
        write(formatCompileLine(e));
      }
    },
    stop() {
      endStage(last);
      last = undefined;
    },
  };
}

function bar(done: number, total: number, width = 24): string {
  // Nothing known yet (0 of 0): an empty bar, never a full one.
  const filled = total <= 0 ? 0 : Math.min(width, Math.floor((done / total) * width));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/**
 * An ink view on stderr: the step, a bar, and its counters (records for the compile, uploaded
 * and carried forward for upload and patch). Redrawn at most every BAR_REDRAW_MS, and at once
 * when the step changes.
 */
export async function createInkPublishProgress(): Promise<PublishProgressView> {
  const { render, Box, Text } = await import('ink');
  // 'start' until the first event: the publish has not said where it stands yet.
  let state: Omit<PublishProgressEvent, 'stage'> & { stage: PublishProgressEvent['stage'] | 'start' } = {
    stage: 'start',
    done: 0,
    total: 0,
  };
  const counters = () =>
    state.stage === 'compile'
      ? [h(Text, { key: 'r', color: 'green' }, `records ${state.records ?? 0}`)]
      : state.uploaded !== undefined
        ? [
            h(Text, { key: 'u', color: 'green' }, `uploaded ${state.uploaded}`),
            '  ',
            h(Text, { key: 'c', color: 'cyan' }, `carried forward ${state.carried ?? 0}`),
          ]
        : [];
  const view = () =>
    h(
      Box,
      { flexDirection: 'column' },
      h(
        Text,
        null,
        h(Text, { bold: true }, state.stage.padEnd(7)),
        ` ${bar(state.done, state.total)} ${state.total > 0 ? `${state.done} of ${state.total}${state.stage === 'compile' ? ' passes' : ''}` : '...'}`,
      ),
      h(
        Text,
        null,
        ...counters(),
        h(
          Text,
          { dimColor: true },
          `  ${state.stage === 'compile' ? (state.pass ?? '') + ' ' : ''}${state.file ?? ''}`,
        ),
      ),
    );
  const instance = render(view(), { stdout: process.stderr, patchConsole: false, exitOnCtrlC: false });
  let drawnAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    drawnAt = Date.now();
    instance.rerender(view());
  };
  return {
    update(e) {
      const stageChanged = e.stage !== state.stage;
      state = e;
      if (stageChanged || Date.now() - drawnAt >= BAR_REDRAW_MS) draw();
      // The last state of a burst is drawn too, a moment later.
      else timer ??= setTimeout(draw, BAR_REDRAW_MS).unref();
    },
    stop() {
      draw();
      instance.unmount();
    },
  };
}
