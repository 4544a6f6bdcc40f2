import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { checkLayers, findCycles, readImportGraph } from './import-graph.js';
import { LAYERS } from './layers.js';

const graph = readImportGraph(join(PROJECT_ROOT, 'src'));
const report = checkLayers(graph, LAYERS);

describe('layers point down (docs/architecture.md)', () => {
  it('every source file belongs to a declared layer', () => {
    expect(report.unplaced).toEqual([]);
  });

  it('no import cycle between files (regression: ingest/routes.ts -> daemon/app.ts -> route-plugins.ts -> ingest/routes.ts, seven files)', () => {
    expect(report.fileCycles).toEqual([]);
  });

  it('no import cycle between modules (regression: src/ingest/extract imported 14 types from src/graph, which imports src/ingest/extract)', () => {
    expect(report.unitCycles).toEqual([]);
  });

  it('no module imports a layer above its own (regression: storage held the graph pool, graph/build-from-items imported ingest)', () => {
    expect(report.upward).toEqual([]);
  });

  it('nothing outside src/daemon and src/cli imports src/daemon (regression: jobs, graph, ingest, auth and mcp imported AppServices or the version from it)', () => {
    const intoDaemon = [...graph.imports].flatMap(([file, targets]) =>
      file.startsWith('src/daemon/') || file.startsWith('src/cli/')
        ? []
        : targets.filter((t) => t.startsWith('src/daemon/')).map((t) => `${file} -> ${t}`),
    );
    expect(intoDaemon).toEqual([]);
  });
});

describe('the import checker itself', () => {
  it('finds a cycle and an upward import it is shown', () => {
    const files = ['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts'];
    const imports = new Map([
      ['src/a/x.ts', ['src/a/y.ts']],
      ['src/a/y.ts', ['src/a/x.ts', 'src/b/z.ts']],
      ['src/b/z.ts', []],
    ]);
    const shown = checkLayers({ files, imports }, [
      { name: 'low', modules: ['src/a'] },
      { name: 'high', modules: ['src/b'] },
    ]);
    expect(shown.fileCycles).toEqual([['src/a/x.ts', 'src/a/y.ts']]);
    expect(shown.upward).toEqual(['src/a/y.ts (low) -> src/b/z.ts (high)']);
    expect(findCycles(['p', 'q'], (n) => (n === 'p' ? ['q'] : []))).toEqual([]);
  });

  it('reads static, type-only, re-export and dynamic imports of the real tree', () => {
    expect(graph.imports.get('src/daemon/server.ts')).toContain('src/daemon/app.ts');
    expect(graph.files.length).toBeGreaterThan(200);
  });
});
