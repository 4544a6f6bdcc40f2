import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The import graph of a source tree: files (relative to the tree's parent, e.g. src/platform/http/envelope.ts) and their relative imports. */
export interface ImportGraph {
  files: string[];
  /** file -> the files it imports (static, type-only, re-exports and dynamic import() alike). */
  imports: Map<string, string[]>;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listSources(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `./x.js` as the source file it names: x.ts, x.tsx or x/index.ts; undefined outside the tree (e.g. package.json). */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const stem = base.replace(/\.js$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts')])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** Reads every .ts/.tsx file under `srcDir` with TypeScript's own import scanner (ts.preProcessFile). */
export function readImportGraph(srcDir: string): ImportGraph {
  const root = dirname(resolve(srcDir));
  const absolute = listSources(resolve(srcDir));
  const name = (path: string) => relative(root, path).split(sep).join('/');
  const imports = new Map<string, string[]>();
  for (const file of absolute) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveSpecifier(file, fileName);
      if (target && target.startsWith(resolve(srcDir))) targets.add(name(target));
    }
    imports.set(name(file), [...targets].sort());
  }
  return { files: absolute.map(name), imports };
}

/** Strongly connected groups of more than one node (or a node importing itself): each is an import cycle. */
export function findCycles(nodes: readonly string[], edges: (node: string) => readonly string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  // Iterative Tarjan: the graph is small, but recursion depth should not depend on it.
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges(frame.node);
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        if (group.length > 1 || edges(frame.node).includes(frame.node)) cycles.push(group.sort());
      }
    }
  }
  return cycles;
}

/** A declared layer order: layers[0] is the lowest; a module may import its own layer and those below. */
export type LayerTable = ReadonlyArray<{ name: string; modules: readonly string[] }>;

/** The most specific table entry (a folder like src/platform/jobs or a file like src/platform/jobs/queue.ts) that holds `file`. */
export function unitOf(table: LayerTable, file: string): { unit: string; rank: number; layer: string } | undefined {
  let best: { unit: string; rank: number; layer: string } | undefined;
  table.forEach((layer, rank) => {
    for (const unit of layer.modules) {
      const holds = file === unit || file.startsWith(`${unit}/`);
      if (holds && (!best || unit.length > best.unit.length)) best = { unit, rank, layer: layer.name };
    }
  });
  return best;
}

export interface LayerReport {
  /** Files no table entry holds. */
  unplaced: string[];
  /** `a -> b` imports into a higher layer. */
  upward: string[];
  /** File-level import cycles. */
  fileCycles: string[][];
  /** Cycles between table entries (e.g. src/ingest/extract <-> src/ingest/graph), within one layer too. */
  unitCycles: string[][];
}

export function checkLayers(graph: ImportGraph, table: LayerTable): LayerReport {
  const unplaced = graph.files.filter((f) => !unitOf(table, f));
  const upward: string[] = [];
  const unitEdges = new Map<string, Set<string>>();
  for (const [file, targets] of graph.imports) {
    const from = unitOf(table, file);
    if (!from) continue;
    for (const target of targets) {
      const to = unitOf(table, target);
      if (!to) continue;
      if (to.rank > from.rank) upward.push(`${file} (${from.layer}) -> ${target} (${to.layer})`);
      if (to.unit !== from.unit) {
        if (!unitEdges.has(from.unit)) unitEdges.set(from.unit, new Set());
        unitEdges.get(from.unit)!.add(to.unit);
      }
    }
  }
  const units = [...new Set(table.flatMap((l) => l.modules))];
  return {
    unplaced,
    upward: upward.sort(),
    fileCycles: findCycles(graph.files, (f) => graph.imports.get(f) ?? []),
    unitCycles: findCycles(units, (u) => [...(unitEdges.get(u) ?? [])].sort()),
  };
}
