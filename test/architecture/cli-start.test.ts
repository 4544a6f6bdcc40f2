import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist');

/** The static imports of a built module (what loads with it), not its dynamic import()s (what loads when used). */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const statement of source.statements)
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    )
      out.push(statement.moduleSpecifier.text);
  return out;
}

/** Every module of the build and every package loaded when `entry` is loaded. */
function loadedWith(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        if (existsSync(target) && !files.has(target)) (files.add(target), queue.push(target));
      } else if (!specifier.startsWith('node:')) {
        packages.add(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        );
      }
    }
  }
  return { files, packages };
}

describe('the CLI starts light (runs the build: npm run build)', () => {
  it('loads none of the daemon, the HTTP shell, metrics, S3, MCP or the terminal UI before a command runs', () => {
    const { packages, files } = loadedWith(resolve(DIST, 'cli/main.js'));
    // Each command imports what it runs when it runs: `nodectl --version` or a usage error needs none of these.
    for (const heavy of ['fastify', 'prom-client', '@aws-sdk/client-s3', 'undici', '@modelcontextprotocol/sdk', 'ink'])
      expect(packages, heavy).not.toContain(heavy);
    expect([...files].filter((file) => file.includes('/dist/daemon/'))).toEqual([]);
  });

  it('the bundle bin/nodectl runs keeps it so: the chunks its entry loads hold none of those packages', () => {
    // esbuild writes each bundled module's path as a comment above its code (no minifying).
    const entry = resolve(DIST, 'bundle/nodectl.js');
    const loaded = [...loadedWith(entry).files].map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(loaded).toMatch(/node_modules\/commander\//);
    for (const heavy of ['fastify', 'prom-client', 'undici', '@modelcontextprotocol/sdk', 'ink'])
      expect(loaded, heavy).not.toMatch(new RegExp(`^// .*node_modules/${heavy.replace('/', '\\/')}/`, 'm'));
    expect(loaded).not.toMatch(/^\/\/ dist\/daemon\//m);
    expect(loaded, 'the AWS SDK (left external)').not.toMatch(/from ["']@aws-sdk\//);
  });
});
