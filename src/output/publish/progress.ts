import type { PublishStep } from './faults.js';

/** What a publish reports while it runs; the CLI draws it (ink or plain lines), the API ignores it. */
export interface PublishProgress {
  /** A step starts with `total` objects to go through; 0 when the count is not known (the compile). */
  step(step: PublishStep | 'check' | 'compile' | 'done', total: number): void;
  advance(path: string, state: 'uploaded' | 'carried' | 'written'): void;
  stop(): void;
}

export const SILENT_PROGRESS: PublishProgress = { step() {}, advance() {}, stop() {} };
