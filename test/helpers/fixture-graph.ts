import type { loadFixture } from '../../src/compiler/fixture.js';
import { buildGraphFromItems } from '../../src/ingest/graph/build-from-items.js';

/** A fixture's graph written into `file` (SQLite), as the daemon would hold it: its items received at its build time. */
export function writeFixtureGraph(fixture: ReturnType<typeof loadFixture>, file: string): void {
  buildGraphFromItems(fixture.items, fixture.site, {
    file,
    receivedAt: new Date(fixture.buildTime).toISOString(),
    editorial: fixture.editorial,
  }).close();
}
