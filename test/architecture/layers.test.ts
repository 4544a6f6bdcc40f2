import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { checkLayers, findCycles, readImportGraph } from './import-graph.js';
import { LAYERS } from './layers.js';

const graph = readImportGraph(join(PROJECT_ROOT, 'src'));
const report = checkLayers(graph, LAYERS);

describe('planes point down (docs/architecture.md)', () => {
  it('every source file belongs to a declared module', () => {
    expect(report.unplaced).toEqual([]);
  });

  it('the table names module folders only, each with an index.ts as its public face', () => {
    const notFolders = LAYERS.flatMap((l) => l.modules).filter(
      (m) => !existsSync(join(PROJECT_ROOT, m)) || !statSync(join(PROJECT_ROOT, m)).isDirectory(),
    );
    expect(notFolders).toEqual([]);
    const withoutFace = LAYERS.flatMap((l) => l.modules).filter((m) => !existsSync(join(PROJECT_ROOT, m, 'index.ts')));
    expect(withoutFace).toEqual([]);
  });

  it('outside a module only its index.ts is imported (regression: 881 of 914 imports between folders reached into internal files)', () => {
    expect(report.intoInternals).toEqual([]);
  });

  it('no import cycle between files (regression: ingest/routes.ts -> daemon/app.ts -> route-plugins.ts -> ingest/routes.ts, seven files)', () => {
    expect(report.fileCycles).toEqual([]);
  });

  it('no import cycle between modules (regression: job kinds in jobs/kinds imported the features, which imported jobs/ to enqueue: 14 folders in one cycle)', () => {
    expect(report.unitCycles).toEqual([]);
  });

  it('no module imports a plane above its own (regression: an organization erase and a website delete imported the publisher)', () => {
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
    expect(shown.intoInternals).toEqual(['src/a/y.ts -> src/b/z.ts']);
    expect(findCycles(['p', 'q'], (n) => (n === 'p' ? ['q'] : []))).toEqual([]);
  });

  it('reads static, type-only, re-export and dynamic imports of the real tree', () => {
    expect(graph.imports.get('src/daemon/server.ts')).toContain('src/daemon/app.ts');
    expect(graph.files.length).toBeGreaterThan(200);
  });
});
