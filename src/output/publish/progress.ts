import type { CompileProgress } from '../../compiler/index.js';
import type { PublishStep } from './faults.js';
import type { PublishProgressEvent } from './schemas.js';

export type { PublishProgressEvent } from './schemas.js';

/** What a publish reports while it runs; a view draws it (ink or plain lines), the streamed route sends it. */
export interface PublishProgress {
  /** A step starts with `total` objects to go through. */
  step(step: PublishStep | 'check' | 'done', total: number): void;
  advance(path: string, state: 'uploaded' | 'carried' | 'written'): void;
  /** Where the compile stands (passes done of total, records written so far). */
  compile(progress: CompileProgress): void;
  stop(): void;
}

export const SILENT_PROGRESS: PublishProgress = { step() {}, advance() {}, compile() {}, stop() {} };

/**
 * Where the progress goes once it is events ({stage, done, total, ...}): the CLI's views, the
 * streamed route. The same events come from a publish here and from one on a daemon.
 */
export interface PublishProgressView {
  update(event: PublishProgressEvent): void;
  stop(): void;
}

/**
 * Turns a publish's calls into progress events for `view`: one per step start, per object gone
 * through and per compile report (the compiler reports every COMPILE_PROGRESS_EVERY rows, not
 * per record). The `done` step is not an event: the answer follows it.
 */
export function trackPublishProgress(view: PublishProgressView): PublishProgress {
  let current: PublishProgressEvent | undefined;
  return {
    step(step, total) {
      if (step === 'done') return;
      current = { stage: step, done: 0, total };
      if (step === 'upload' || step === 'patch') Object.assign(current, { uploaded: 0, carried: 0 });
      view.update({ ...current });
    },
    advance(path, state) {
      if (current === undefined) return;
      current.done++;
      current.file = path;
      if (state === 'uploaded' && current.uploaded !== undefined) current.uploaded++;
      if (state === 'carried' && current.carried !== undefined) current.carried++;
      view.update({ ...current });
    },
    compile(p) {
      current = { stage: 'compile', done: p.done, total: p.total, pass: p.pass, records: p.records };
      if (p.file !== undefined) current.file = p.file;
      view.update({ ...current });
    },
    stop() {
      view.stop();
    },
  };
}
