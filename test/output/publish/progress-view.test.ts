import { describe, expect, it } from 'vitest';
import { COMPILE_PASSES } from '../../../src/compiler/progress.js';
import { PLAIN_COMPILE_EVERY_MS, createPlainPublishProgress } from '../../../src/output/publish/progress-view.js';
import { trackPublishProgress, type PublishProgressEvent } from '../../../src/output/publish/progress.js';

// The plain progress lines (stderr that is not a terminal), here and over HTTP: both draw from the same events.
const total = COMPILE_PASSES.length;

describe('plain publish progress', () => {
  it('prints a line per step, per compile pass with its records, and the counts of upload and patch', () => {
    const lines: string[] = [];
    const events: PublishProgressEvent[] = [];
    const view = createPlainPublishProgress(
      (l) => lines.push(l),
      () => 0,
    );
    const progress = trackPublishProgress({
      update: (e) => {
        events.push(e);
        view.update(e);
      },
      stop: () => view.stop(),
    });
    progress.compile({ done: 0, total, pass: 'sources', records: 0 });
    progress.compile({ done: 0, total, pass: 'sources', file: 'sources.jsonl', records: 0 });
    progress.compile({ done: 1, total, pass: 'sources', records: 12 });
    progress.compile({ done: 1, total, pass: 'entity scan', records: 12 });
    progress.compile({ done: 2, total, pass: 'entity scan', records: 12 });
    progress.compile({ done: 2, total, pass: 'facts', file: 'facts.en.jsonl', records: 1012 });
    progress.compile({ done: 3, total, pass: 'facts', records: 1500 });
    progress.step('check', 1);
    progress.step('upload', 3);
    progress.advance('facts.en.jsonl', 'uploaded');
    progress.advance('facts.en.jsonl', 'written');
    progress.advance('sources.jsonl', 'carried');
    progress.step('verify', 2);
    progress.advance('facts.en.jsonl', 'written');
    progress.step('done', 0);
    progress.stop();
    expect(lines).toEqual([
      `compile: ${total} passes over the graph`,
      `compile: 1 of ${total} passes (sources), 12 records`,
      `compile: 2 of ${total} passes (entity scan), 12 records`,
      `compile: 3 of ${total} passes (facts), 1500 records`,
      'check: 1 object(s)',
      'upload: 3 object(s)',
      '  1 uploaded, 1 carried forward',
      'verify: 2 object(s)',
    ]);
    expect(events.at(-1)).toEqual({ stage: 'verify', done: 1, total: 2, file: 'facts.en.jsonl' });
    expect(events.find((e) => e.stage === 'upload' && e.done === 3)).toEqual({
      stage: 'upload',
      done: 3,
      total: 3,
      file: 'sources.jsonl',
      uploaded: 1,
      carried: 1,
    });
  });

  it('inside a long pass prints the count so far at most once per interval, not per report', () => {
    const lines: string[] = [];
    let now = 0;
    const view = createPlainPublishProgress(
      (l) => lines.push(l),
      () => now,
    );
    const facts = (records: number): PublishProgressEvent => ({
      stage: 'compile',
      done: 2,
      total,
      pass: 'facts',
      file: 'facts.en.jsonl',
      records,
    });
    view.update({ stage: 'compile', done: 2, total, pass: 'facts', records: 0 });
    for (let i = 1; i <= 50; i++) view.update(facts(i * 1000));
    now = PLAIN_COMPILE_EVERY_MS;
    view.update(facts(51_000));
    view.update(facts(52_000));
    expect(lines).toEqual([
      `compile: ${total} passes over the graph`,
      `compile: 2 of ${total} passes (facts, facts.en.jsonl), 51000 records`,
    ]);
  });
});
