import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ManifestFile } from '../../../src/platform/node-format/index.js';
import { planPublish, type PublishPlan } from '../../../src/output/publish/plan.js';

const sha = (body: string | Buffer) => createHash('sha256').update(body).digest('hex');
const EMPTY = sha('');

function file(path: string, body: string): ManifestFile {
  return {
    path,
    content_type: 'application/x-ndjson',
    checksum: `sha256:${sha(body)}`,
    bytes: Buffer.byteLength(body),
    immutable: path.endsWith('.jsonl'),
  };
}

/**
 * Runs a plan the way publishNode does (step upload, then patch; in each step every send, then
 * every copy) against a simulated cas/, and checks what must hold for any set of files: each sha
 * the store lacks is sent exactly once, before any copy reads it, and every file is copied once.
 */
function expectSound(plan: PublishPlan, files: ManifestFile[], bodies: Map<string, Buffer>, held: Set<string>): void {
  const cas = new Set(held);
  const copied: string[] = [];
  for (const step of ['upload', 'patch'] as const) {
    for (const s of plan.sends.filter((x) => x.step === step)) {
      expect(cas.has(s.sha), `${s.sha} sent twice or already held`).toBe(false);
      // the bytes sent are the bytes of that sha: a patched body, or the compiled file itself
      if (s.body !== undefined) expect(sha(s.body)).toBe(s.sha);
      else expect(bodies.has(s.file.path)).toBe(false);
      expect(s.file.checksum).toBe(`sha256:${s.sha}`);
      cas.add(s.sha);
    }
    for (const c of plan.copies.filter((x) => x.step === step)) {
      expect(cas.has(c.sha), `${c.file.path} copied before ${c.sha} is in cas/`).toBe(true);
      copied.push(c.file.path);
    }
  }
  expect(copied.sort()).toEqual(files.map((f) => f.path).sort());
  const missing = new Set(files.map((f) => f.checksum.slice(7)).filter((s) => !held.has(s)));
  expect(plan.sends.map((s) => s.sha).sort()).toEqual([...missing].sort());
  expect(
    plan.files
      .filter((f) => f.state === 'uploaded')
      .map((f) => f.path)
      .sort(),
  ).toEqual(plan.sends.map((s) => s.file.path).sort());
  expect(plan.bytesUploaded).toBe(plan.sends.reduce((n, s) => n + s.file.bytes, 0));
  expect(plan.bytesUploaded + plan.bytesCarried).toBe(files.reduce((n, f) => n + f.bytes, 0));
}

describe('the publish plan', () => {
  it('bug "first publish with an empty file fails (ENOENT on cas/e3/e3b0c442...)": an empty patched file and empty compiled files send the empty body once, in the upload step, before any copy', () => {
    // fixtures/minimal: changes.jsonl (patched: a first version has no lines), facts.en.jsonl and qa.en.jsonl are all empty.
    const files = [
      file('changes.jsonl', ''),
      file('entities.en.jsonl', '{"id":"entity_1"}\n'),
      file('facts.en.jsonl', ''),
      file('qa.en.jsonl', ''),
      file('versions.json', '{"v":1}\n'),
    ];
    const bodies = new Map([
      ['changes.jsonl', Buffer.from('')],
      ['versions.json', Buffer.from('{"v":1}\n')],
    ]);
    const plan = planPublish(files, bodies, new Set());
    expectSound(plan, files, bodies, new Set());
    expect(plan.sends.filter((s) => s.sha === EMPTY)).toEqual([
      expect.objectContaining({ step: 'upload', file: expect.objectContaining({ path: 'facts.en.jsonl' }) }),
    ]);
    expect(plan.files.map((f) => [f.path, f.state])).toEqual([
      ['changes.jsonl', 'carried'],
      ['entities.en.jsonl', 'uploaded'],
      ['facts.en.jsonl', 'uploaded'],
      ['qa.en.jsonl', 'carried'],
      ['versions.json', 'uploaded'],
    ]);
  });

  it('bytes only a patched body has are sent in the patch step, once, before the copies that read them', () => {
    const files = [file('changes.jsonl', 'x\n'), file('openapi.json', 'x\n'), file('versions.json', 'y\n')];
    const bodies = new Map(files.map((f) => [f.path, Buffer.from(f.path === 'versions.json' ? 'y\n' : 'x\n')]));
    const plan = planPublish(files, bodies, new Set());
    expectSound(plan, files, bodies, new Set());
    expect(plan.sends.map((s) => [s.file.path, s.step])).toEqual([
      ['changes.jsonl', 'patch'],
      ['versions.json', 'patch'],
    ]);
  });

  it('identical bytes under several compiled files are sent once even though the copies run concurrently', () => {
    const files = ['a', 'b', 'c', 'd'].map((p) => file(`${p}.jsonl`, 'same\n'));
    const plan = planPublish(files, new Map(), new Set());
    expectSound(plan, files, new Map(), new Set());
    expect(plan.sends).toHaveLength(1);
  });

  it('bytes the store holds are never sent; every file is still copied', () => {
    const files = [file('a.jsonl', 'held\n'), file('changes.jsonl', 'held\n'), file('b.jsonl', '')];
    const held = new Set([sha('held\n'), EMPTY]);
    const bodies = new Map([['changes.jsonl', Buffer.from('held\n')]]);
    const plan = planPublish(files, bodies, held);
    expectSound(plan, files, bodies, held);
    expect(plan.sends).toEqual([]);
    expect(plan.bytesUploaded).toBe(0);
  });

  it('is sound for any set of files: 2,000 random sets with shared, empty, patched-only and held bytes', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pool = ['', 'a\n', 'b\n', 'c\n', '{"x":1}\n', 'long '.repeat(50)];
    for (let round = 0; round < 2000; round++) {
      const files: ManifestFile[] = [];
      const bodies = new Map<string, Buffer>();
      const count = 1 + Math.floor(random() * 10);
      for (let i = 0; i < count; i++) {
        const body = pool[Math.floor(random() * pool.length)]!;
        const path = `f${i}.jsonl`;
        files.push(file(path, body));
        if (random() < 0.3) bodies.set(path, Buffer.from(body));
      }
      const held = new Set(pool.map(sha).filter(() => random() < 0.3));
      expectSound(planPublish(files, bodies, held), files, bodies, held);
    }
  });
});
