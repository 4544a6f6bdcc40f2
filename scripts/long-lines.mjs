#!/usr/bin/env node
// Lists the lines longer than the print width that prettier leaves long: it formats each file in
// memory (with .prettierrc.json) and reports the long lines of the result, each with what keeps it
// long: a comment (reflow it by hand), a string, template or regex literal (prettier never splits
// one), or code. Usage: node scripts/long-lines.mjs [folders or files...] (default: src test).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import ts from 'typescript';

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['src', 'test'];
const config = (await prettier.resolveConfig('src/index.ts')) ?? {};
const width = config.printWidth ?? 80;

function* files(path) {
  if (statSync(path).isDirectory()) for (const name of readdirSync(path).sort()) yield* files(join(path, name));
  else if (/\.(ts|tsx|mjs)$/.test(path)) yield path;
}

/** For each line of `text`, the kinds of element on it: comment, string, template, regex. */
function kindsByLine(path, text) {
  const source = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.Latest,
    true,
    path.endsWith('x') ? ts.ScriptKind.TSX : undefined,
  );
  const kinds = new Map();
  const mark = (start, end, kind) => {
    const first = source.getLineAndCharacterOfPosition(start).line;
    const last = source.getLineAndCharacterOfPosition(end).line;
    for (let line = first; line <= last; line++) kinds.set(line, (kinds.get(line) ?? new Set()).add(kind));
  };
  const seen = new Set();
  const comments = (ranges) => {
    for (const r of ranges ?? []) if (!seen.has(r.pos)) (seen.add(r.pos), mark(r.pos, r.end, 'comment'));
  };
  // Every node and token (getChildren): a comment before a closing brace is the trivia of a token.
  const visit = (node) => {
    comments(ts.getLeadingCommentRanges(text, node.pos));
    comments(ts.getTrailingCommentRanges(text, node.end));
    if (ts.isStringLiteral(node) || ts.isJsxText(node)) mark(node.getStart(source), node.end, 'string');
    else if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))
      mark(node.getStart(source), node.end, 'template');
    else if (ts.isRegularExpressionLiteral(node)) mark(node.getStart(source), node.end, 'regex');
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return kinds;
}

let count = 0;
for (const root of roots) {
  for (const path of files(root)) {
    const formatted = await prettier.format(readFileSync(path, 'utf8'), { ...config, filepath: path });
    const lines = formatted.split('\n');
    const long = lines.flatMap((line, i) => (line.length > width ? [i] : []));
    if (long.length === 0) continue;
    const kinds = kindsByLine(path, formatted);
    for (const i of long) {
      const what = [...(kinds.get(i) ?? ['code'])].sort().join('+');
      console.log(`${path}:${i + 1}: ${lines[i].length} ${what}: ${lines[i].trim().slice(0, 100)}`);
      count++;
    }
  }
}
console.error(`${count} lines longer than ${width} after prettier (line numbers are those of the formatted file)`);
