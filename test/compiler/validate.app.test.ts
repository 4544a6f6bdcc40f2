import { createHash } from 'node:crypto';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import type { Manifest } from '../../src/platform/node-format/index.js';
import { makeTempDir } from '../helpers/paths.js';

const GOLDEN = join(__dirname, '..', '..', 'golden');
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function copyOf(name: string): string {
  const { dir, cleanup } = makeTempDir('nodectl-validate-');
  cleanups.push(cleanup);
  cpSync(join(GOLDEN, name), dir, { recursive: true });
  return dir;
}

function edit(dir: string, file: string, change: (text: string) => string): void {
  writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));
}

const codes = async (dir: string) => (await validateNode(dir)).errors.map((e) => e.code);

const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

/** Edits a file and its manifest entry alike, as a compiler would have written it. */
function rewrite(dir: string, file: string, change: (text: string) => string): void {
  edit(dir, file, change);
  const body = readFileSync(join(dir, file));
  edit(dir, 'manifest.json', (t) => {
    const m = JSON.parse(t) as Manifest;
    const entry = m.files.find((f) => f.path === file)!;
    entry.checksum = 'sha256:' + createHash('sha256').update(body).digest('hex');
    entry.bytes = body.length;
    if (entry.records !== undefined) entry.records = body.toString('utf8').split('\n').length - 1;
    return JSON.stringify(m, null, 2) + '\n';
  });
}

describe('validateNode', () => {
  it('accepts a compiled node', async () => {
    const report = await validateNode(copyOf('shop'));
    expect(report).toMatchObject({ ok: true, domain: 'www.kaffeewerk.example', errors: [] });
    expect(report.records).toBeGreaterThan(100);
  });

  it('reports a changed file as a checksum and size mismatch', async () => {
    const dir = copyOf('shop');
    edit(dir, 'facts.en.jsonl', (t) => t.replace('Colombia Huila', 'Colombia Huilo'));
    expect(await codes(dir)).toEqual(expect.arrayContaining(['file.checksum_mismatch']));
  });

  it('reports a missing file, a blank line and a missing final newline', async () => {
    const dir = copyOf('blog');
    const { rmSync } = await import('node:fs');
    rmSync(join(dir, 'qa.en.jsonl'));
    edit(dir, 'chunks.en.jsonl', (t) => t.replace('\n', '\n\n'));
    edit(dir, 'sources.jsonl', (t) => t.slice(0, -1));
    expect(await codes(dir)).toEqual(
      expect.arrayContaining(['file.missing', 'jsonl.blank_line', 'jsonl.final_newline']),
    );
  });

  it('reports a uuid where a stable id is required as node.uuid_leak', async () => {
    const dir = copyOf('docs');
    edit(dir, 'entities.en.jsonl', (t) =>
      t.replace(/"id":"entity_[0-9a-f]+"/, '"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"'),
    );
    expect(await codes(dir)).toContain('node.uuid_leak');
  });

  it('reports dangling cross-file references, internal fields and a second fact per (subject, predicate)', async () => {
    const dir = copyOf('shop');
    edit(dir, 'relationships.en.jsonl', (t) =>
      t.replace(/"to_entity_id":"entity_[0-9a-f]+"/, '"to_entity_id":"entity_000000000000000000000000"'),
    );
    edit(dir, 'qa.en.jsonl', (t) => t.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","stale":true'));
    edit(dir, 'facts.de.jsonl', (t) => {
      const first = t.split('\n')[0]!;
      return t + first.replace(/"id":"fact_[0-9a-f]{4}/, '"id":"fact_ffff') + '\n';
    });
    const found = await codes(dir);
    expect(found).toEqual(
      expect.arrayContaining([
        'ref.dangling',
        'export.internal_field',
        'export.superseded_fact',
        'manifest.records_mismatch',
      ]),
    );
  });

  it('reports a bidi or other control character in llms.txt or llms-full.txt (the compiler strips them from text)', async () => {
    const dir = copyOf('blog');
    rewrite(dir, 'llms.txt', (t) => t.replace('# Field Notes', '# Field \u202eNotes'));
    rewrite(dir, 'llms-full.txt', (t) => t.replace('# Field Notes', '# Field\u0007 Notes'));
    const report = await validateNode(dir);
    expect(
      report.errors.filter((e) => e.code === 'text.control_character').map((e) => [e.file, e.message.slice(0, 12)]),
    ).toEqual([
      ['llms-full.txt', 'holds U+0007'],
      ['llms.txt', 'holds U+202E'],
    ]);
  });

  it('reports plan-gated files without the capability', async () => {
    const dir = copyOf('docs');
    writeFileSync(join(dir, 'trust.json'), '{}\n');
    edit(dir, 'manifest.json', (t) => {
      const m = JSON.parse(t);
      m.files.push({
        path: 'trust.json',
        content_type: 'application/json',
        checksum: 'sha256:' + '0'.repeat(64),
        bytes: 3,
        immutable: false,
      });
      return JSON.stringify(m, null, 2) + '\n';
    });
    expect(await codes(dir)).toEqual(expect.arrayContaining(['file.not_entitled']));
  });

  it('says so when there is no manifest', async () => {
    const { dir, cleanup } = makeTempDir();
    cleanups.push(cleanup);
    expect(await validateNode(dir)).toMatchObject({ ok: false, errors: [{ code: 'manifest.missing' }] });
  });

  it('validates a node served over HTTP', async () => {
    const root = join(GOLDEN, 'local-business');
    const server = createServer((req, res) => {
      try {
        const body = readFileSync(
          join(root, decodeURIComponent(new URL(req.url!, 'http://x').pathname.replace(/^\/node\//, ''))),
        );
        res.writeHead(200).end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/node/`;
    const report = await validateNode(url);
    expect(report.errors).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.location).toBe(url);
  });

  describe('a node its publisher just compiled (recordsPassedSchemas)', () => {
    it('does not run the line schemas again, and still runs every other check', async () => {
      const dir = copyOf('shop');
      // an extra field fails the strict line schema, and only the schema
      rewrite(dir, 'chunks.en.jsonl', (t) =>
        t.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","extra":1'),
      );
      expect(await codes(dir)).toEqual(['schema.invalid']);
      expect((await validateNode(dir, { recordsPassedSchemas: true })).errors).toEqual([]);
      rewrite(dir, 'facts.en.jsonl', (t) =>
        t.replace(/"id":"fact_[0-9a-f]+"/, '"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"'),
      );
      rewrite(dir, 'qa.de.jsonl', (t) =>
        t.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","stale":true'),
      );
      rewrite(dir, 'relationships.en.jsonl', (t) =>
        t.replace(/"to_entity_id":"entity_[0-9a-f]+"/, '"to_entity_id":"entity_000000000000000000000000"'),
      );
      edit(dir, 'sources.jsonl', (t) => t.replace('https://', 'http://'));
      const found = (await validateNode(dir, { recordsPassedSchemas: true })).errors.map((e) => e.code);
      expect(found).toEqual(
        expect.arrayContaining(['node.uuid_leak', 'export.internal_field', 'ref.dangling', 'file.checksum_mismatch']),
      );
      expect(found).not.toContain('schema.invalid');
    });
  });

  describe("against a validated node (a publisher's live version)", () => {
    it('does not read the files the validated node holds unchanged', async () => {
      const dir = copyOf('shop');
      const validatedNode = manifestOf(dir);
      // the publisher copies carried files from its store, so the local copies are not consulted
      rmSync(join(dir, 'chunks.en.jsonl'));
      expect((await validateNode(dir, { validatedNode })).errors).toEqual([]);
      expect(await codes(dir)).toContain('file.missing');
    });

    it('checks a changed file in full: a uuid is node.uuid_leak, an internal field and a bad schema are refused', async () => {
      const dir = copyOf('shop');
      const validatedNode = manifestOf(dir);
      rewrite(dir, 'facts.en.jsonl', (t) =>
        t.replace(/"id":"fact_[0-9a-f]+"/, '"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"'),
      );
      rewrite(dir, 'qa.de.jsonl', (t) =>
        t.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","stale":true'),
      );
      rewrite(dir, 'llms.txt', () => 'no title\n');
      const found = (await validateNode(dir, { validatedNode })).errors.map((e) => e.code);
      expect(found).toEqual(
        expect.arrayContaining(['node.uuid_leak', 'export.internal_field', 'schema.invalid', 'llms.no_title']),
      );
    });

    it('checks the references of unchanged files again when a record file changed', async () => {
      const dir = copyOf('shop');
      const validatedNode = manifestOf(dir);
      const referenced = /"subject_entity_id":"(entity_[0-9a-f]+)"/.exec(
        readFileSync(join(dir, 'facts.en.jsonl'), 'utf8'),
      )![1]!;
      rewrite(dir, 'entities.en.jsonl', (t) =>
        t
          .split('\n')
          .filter((line) => !line.includes(`"id":"${referenced}"`))
          .join('\n'),
      );
      const report = await validateNode(dir, { validatedNode });
      expect(report.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ code: 'ref.dangling', file: 'facts.en.jsonl' })]),
      );
    });

    it("checks a changed file's references against the ids of unchanged files, and finds a duplicate across them", async () => {
      const dir = copyOf('shop');
      const validatedNode = manifestOf(dir);
      const entity = readFileSync(join(dir, 'entities.en.jsonl'), 'utf8').split('\n')[0]!;
      rewrite(dir, 'entities.de.jsonl', (t) => t + entity + '\n');
      rewrite(dir, 'relationships.en.jsonl', (t) =>
        t.replace(/"to_entity_id":"entity_[0-9a-f]+"/, '"to_entity_id":"entity_000000000000000000000000"'),
      );
      const found = (await validateNode(dir, { validatedNode })).errors.map((e) => e.code);
      expect(found).toEqual(expect.arrayContaining(['jsonl.duplicate_id', 'ref.dangling']));
    });

    it('checks versions.json against this version even when its bytes are unchanged', async () => {
      const dir = copyOf('shop');
      const validatedNode = manifestOf(dir);
      edit(dir, 'manifest.json', (t) => t.replace(validatedNode.node_version, '01ARZ3NDEKTSV4RRFFQ69G5FAV'));
      expect((await validateNode(dir, { validatedNode })).errors.map((e) => e.code)).toContain('ref.mismatch');
    });
  });
});
