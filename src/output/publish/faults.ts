/** The steps of the atomic sequence, in order (docs/publishing.md). */
export const PUBLISH_STEPS = ['upload', 'patch', 'verify', 'latest', 'flip'] as const;
export type PublishStep = (typeof PUBLISH_STEPS)[number];

/**
 * Fault injection for the crash tests, read from the environment of the real binary:
 * - NODECTL_FAULT_AT=<step>: the process kills itself (SIGKILL, no cleanup, the lock row stays)
 *   halfway through that step's writes (for flip: just before the pointer write);
 * - NODECTL_FAULT_PAUSE_AT=<step>: the process prints `paused at <step>` on stderr and waits
 *   at the start of that step until it is killed (to hold the lock in a test).
 * Neither variable is set in production; reading them costs one lookup per write.
 */
export async function faultPoint(step: PublishStep, index: number, total: number): Promise<void> {
  if (process.env.NODECTL_FAULT_PAUSE_AT === step && index === 0) {
    process.stderr.write(`paused at ${step}\n`);
    await new Promise<void>(() => setInterval(() => {}, 1 << 30));
  }
  if (process.env.NODECTL_FAULT_AT === step && index === Math.floor(total / 2)) {
    process.stderr.write(`fault injected at ${step} (${index}/${total})\n`);
    process.kill(process.pid, 'SIGKILL');
    await new Promise<void>(() => {});
  }
}

/** Runs `work` over `items` with at most `limit` at once; results keep the input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
