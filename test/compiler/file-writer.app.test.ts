import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileToDirectory, createDirectorySink } from '../../src/compiler/directory.js';
import { FileWriterThread, FLOW, sharedFileWriter } from '../../src/compiler/file-writer.js';
import { loadFixture } from '../../src/compiler/fixture.js';
import { listFixtures } from '../../src/compiler/golden.js';
import { TrackedFile } from '../../src/compiler/sink.js';
import { SqliteGraphReader } from '../../src/ingest/graph/reader.js';
import { GRAPH_DB_OPTIONS } from '../../src/platform/storage/graph-db.js';
import { openDatabase } from '../../src/platform/storage/sqlite.js';
import { writeFixtureGraph } from '../helpers/fixture-graph.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-file-writer-'));
  dirs.push(dir);
  return dir;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the file writing thread (src/compiler/file-writer.ts)', () => {
  it('compiles every fixture into the same files, with the same checksums, as the compiling thread writing them', async () => {
    const fixtures = listFixtures(join(PROJECT_ROOT, 'fixtures'));
    expect(fixtures.length).toBeGreaterThan(2);
    for (const name of fixtures) {
      const fixture = loadFixture(join(PROJECT_ROOT, 'fixtures', name));
      const dir = tempDir();
      const file = join(dir, 'graph.sqlite');
      writeFixtureGraph(fixture, file);
      const db = openDatabase(file, GRAPH_DB_OPTIONS);
      try {
        const compile = (out: string, writingThread: boolean) =>
          compileToDirectory(new SqliteGraphReader(db), fixture.site, join(dir, out), {
            ...fixture.presentation,
            buildTime: fixture.buildTime,
            writingThread,
          });
        const inThread = await compile('in-thread', false);
        const onThread = await compile('on-thread', true);
        expect(onThread.files, name).toEqual(inThread.files);
        const names = readdirSync(join(dir, 'in-thread')).sort();
        expect(readdirSync(join(dir, 'on-thread')).sort(), name).toEqual(names);
        for (const path of names)
          expect(
            readFileSync(join(dir, 'on-thread', path)).equals(readFileSync(join(dir, 'in-thread', path))),
            `${name} ${path}`,
          ).toBe(true);
      } finally {
        db.close();
      }
    }
  });

  it('writes every byte in order and hashes them as node:crypto does, across batches and open files', async () => {
    const dir = tempDir();
    const writer = await sharedFileWriter();
    // Sizes around the 1 MiB batch and chunks that straddle it; two files written in turns.
    const contents = [randomBytes(3 * 1024 * 1024 + 17), randomBytes(1024 * 1024), Buffer.alloc(0)];
    const fds = contents.map((_, k) => openSync(join(dir, `f${k}`), 'wx'));
    const files = fds.map((fd) => writer.open(fd));
    const steps = [1, 4095, 65536, 1 << 20, 333_333];
    const at = contents.map(() => 0);
    for (let step = 0; at.some((a, k) => a < contents[k]!.length); step++)
      for (const [k, content] of contents.entries()) {
        const n = Math.min(steps[step % steps.length]!, content.length - at[k]!);
        if (n > 0) files[k]!.write(content.subarray(at[k]!, at[k]! + n));
        at[k]! += n;
      }
    const digests = files.map((file) => file.digest());
    fds.forEach((fd) => closeSync(fd));
    for (const [k, content] of contents.entries()) {
      expect(digests[k]).toBe(sha256(content));
      expect(readFileSync(join(dir, `f${k}`)).equals(content)).toBe(true);
    }
  });

  it('a directory sink gives TrackedFile the thread’s digest: the checksum is the written file’s', async () => {
    const dir = tempDir();
    const sink = createDirectorySink(dir, await sharedFileWriter());
    const file = new TrackedFile(sink, 'records.jsonl');
    const lines = Array.from({ length: 20_000 }, (_, k) =>
      Buffer.from(`{"id":"rec_${k}","text":"${'é'.repeat(k % 90)}"}`),
    );
    for (const line of lines) file.writeLine(line);
    const written = file.close();
    await sink.flushed();
    const bytes = readFileSync(join(dir, 'records.jsonl'));
    expect(written).toEqual({
      path: 'records.jsonl',
      checksum: `sha256:${sha256(bytes)}`,
      bytes: bytes.length,
      records: lines.length,
    });
    expect(bytes.toString('utf8')).toBe(lines.map((line) => `${line.toString('utf8')}\n`).join(''));
  });

  it('a file closed without asking for its digest (a wrapping sink hashed it) is still written whole before it is closed', async () => {
    const dir = tempDir();
    const sink = createDirectorySink(dir, await sharedFileWriter());
    const file = sink.open('kept.txt');
    const bytes = randomBytes(600 * 1024 + 3);
    file.write(bytes);
    file.close({ path: 'kept.txt', checksum: '', bytes: bytes.length });
    await sink.flushed();
    expect(readFileSync(join(dir, 'kept.txt')).equals(bytes)).toBe(true);
  });

  it('a write that fails stops the file at its next batch with the errno error (the code a full disk is told by)', async () => {
    const dir = tempDir();
    const path = join(dir, 'read-only');
    writeFileSync(path, '');
    const fd = openSync(path, 'r'); // write(2) on it fails with EBADF
    try {
      const file = (await sharedFileWriter()).open(fd);
      let thrown: unknown;
      let given = 0;
      try {
        // The first batch fails in the thread; a later batch of the same file throws, long before 64 MiB.
        for (; given < 64; given++) file.write(Buffer.alloc(1 << 20, 1));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as NodeJS.ErrnoException).code).toBe('EBADF');
      expect((thrown as NodeJS.ErrnoException).syscall).toBe('write');
      expect(given).toBeLessThan(40);
      expect(statSync(path).size).toBe(0);
    } finally {
      closeSync(fd);
    }
  });

  it("counts only answers to asks: the thread's ready message, read while it starts, is not one (an ask would take its count for its own answer)", async () => {
    const thread = await FileWriterThread.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const flow = Reflect.get(thread, 'flow') as Int32Array;
    expect(Atomics.load(flow, FLOW.answers)).toBe(0);
    const dir = tempDir();
    const fd = openSync(join(dir, 'first'), 'wx');
    const file = thread.open(fd);
    file.write(Buffer.from('first ask\n'));
    expect(file.digest()).toBe(sha256(Buffer.from('first ask\n')));
    expect(Atomics.load(flow, FLOW.answers)).toBe(1);
    closeSync(fd);
  });

  it('a dropped file gets no more bytes, and the thread goes on with the next', async () => {
    const dir = tempDir();
    const writer = await sharedFileWriter();
    const fd = openSync(join(dir, 'dropped'), 'wx');
    const dropped = writer.open(fd);
    dropped.write(Buffer.alloc(10, 1)); // still in its batch: dropped before it is posted
    writer.drop([dropped.id]);
    expect(() => dropped.digest()).toThrow(/is not open/);
    closeSync(fd);
    expect(statSync(join(dir, 'dropped')).size).toBe(0);

    const next = openSync(join(dir, 'next'), 'wx');
    const file = writer.open(next);
    file.write(Buffer.from('still writing\n'));
    expect(file.digest()).toBe(sha256(Buffer.from('still writing\n')));
    closeSync(next);
  });
});
