import { join } from 'node:path';
import { loadFixture } from '../../../src/compiler/fixture.js';
import { DISCARDING_SINK } from '../../../src/compiler/sink.js';
import { ParallelWrittenNodeCheck, writtenCheckWorkerUrl } from '../../../src/compiler/validate/written-node-thread.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { ThreadedGraphReader } from '../../../src/ingest/graph/reader-thread.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';

/**
 * A publish's two helper threads, started as a publish starts them (from the build): the graph
 * reading thread over the shop fixture's graph in a file, and the written-node check moved to
 * its worker by its first chunk. Each pushes how to end it onto `cleanups`.
 */
export async function startGraphReader(cleanups: Array<() => unknown>): Promise<ThreadedGraphReader> {
  const { dir, cleanup } = makeTempDir('nodectl-helper-threads-');
  cleanups.push(cleanup);
  const fixture = loadFixture(join(PROJECT_ROOT, 'fixtures', 'shop'));
  const file = join(dir, 'graph.sqlite');
  buildGraphFromItems(fixture.items, fixture.site, {
    file,
    receivedAt: new Date(fixture.buildTime).toISOString(),
  }).close();
  const reader = await ThreadedGraphReader.open(file);
  cleanups.push(() => reader.close());
  return reader;
}

export function startWrittenCheckWorker(cleanups: Array<() => unknown>): ParallelWrittenNodeCheck {
  const check = new ParallelWrittenNodeCheck('/nowhere', { handoverBytes: 0, workerUrl: writtenCheckWorkerUrl() });
  cleanups.push(() => check.close());
  check.sink(DISCARDING_SINK).open('llms.txt').write(new TextEncoder().encode('# Shop\n'));
  return check;
}
