import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishTarget } from '../../../src/output/publish/targets/types.js';

const TEXT = {
  contentType: 'text/plain; charset=utf-8',
  cacheControl: 'public, max-age=60, stale-while-revalidate=300',
};
const JSONL = { contentType: 'application/x-ndjson', cacheControl: 'public, max-age=31536000, immutable' };

/**
 * One suite every publish target must pass (fs and s3 run it against real storage). `create`
 * returns a fresh, empty target; `dispose` stops what it started.
 */
export function runTargetConformance(
  name: string,
  create: () => Promise<PublishTarget>,
  dispose: () => Promise<void> = async () => {},
): void {
  describe(`publish target conformance: ${name}`, () => {
    let target: PublishTarget;
    let scratch: string;
    beforeAll(async () => {
      target = await create();
      scratch = mkdtempSync(join(tmpdir(), 'nodectl-conf-'));
    });
    afterAll(async () => {
      await target.close();
      rmSync(scratch, { recursive: true, force: true });
      await dispose();
    });

    it('put then get returns the same bytes; head reports size, content type and cache-control', async () => {
      const body = Buffer.from('héllo\nworld\n');
      await target.put('site/latest/llms.txt', body, TEXT);
      expect(Buffer.compare((await target.get('site/latest/llms.txt'))!, body)).toBe(0);
      const info = await target.head('site/latest/llms.txt');
      expect(info).toMatchObject({ key: 'site/latest/llms.txt', bytes: body.length, cacheControl: TEXT.cacheControl });
      expect(info!.contentType).toMatch(/^text\/plain/);
    });

    it('missing objects: head and get give undefined, delete is harmless', async () => {
      expect(await target.head('site/nothing/here.json')).toBeUndefined();
      expect(await target.get('site/nothing/here.json')).toBeUndefined();
      await target.delete('site/nothing/here.json');
      await target.delete('site/nothing/here.json');
    });

    it('put replaces an object whole, metadata included', async () => {
      await target.put('site/a.json', '{"v":1}', TEXT);
      await target.put('site/a.json', '{"v":22}', JSONL);
      expect((await target.get('site/a.json'))!.toString()).toBe('{"v":22}');
      expect(await target.head('site/a.json')).toMatchObject({
        bytes: 8,
        contentType: JSONL.contentType,
        cacheControl: JSONL.cacheControl,
      });
    });

    it('putFile streams a local file', async () => {
      const file = join(scratch, 'big.jsonl');
      const line = JSON.stringify({ id: 'entity_0123456789abcdef', text: 'x'.repeat(200) }) + '\n';
      writeFileSync(file, line.repeat(5000));
      await target.putFile('site/cas/ab/big', file, JSONL);
      const info = await target.head('site/cas/ab/big');
      expect(info!.bytes).toBe(line.length * 5000);
      expect((await target.get('site/cas/ab/big'))!.subarray(0, line.length).toString()).toBe(line);
    });

    it('putFile of a handed-over file keeps the object whole after the file is removed', async () => {
      const file = join(scratch, 'handed.jsonl');
      writeFileSync(file, 'handed over\n');
      await target.putFile('site/cas/ef/handed', file, { ...JSONL, handOver: true });
      rmSync(file);
      expect((await target.get('site/cas/ef/handed'))!.toString()).toBe('handed over\n');
      expect(await target.head('site/cas/ef/handed')).toMatchObject({
        bytes: 12,
        contentType: JSONL.contentType,
        cacheControl: JSONL.cacheControl,
      });
    });

    it('copy carries bytes to a new key with new metadata; the source stays', async () => {
      await target.put('site/cas/cd/src', 'same bytes', JSONL);
      await target.copy('site/cas/cd/src', 'site/versions/01J/entities.en.jsonl', TEXT);
      expect((await target.get('site/versions/01J/entities.en.jsonl'))!.toString()).toBe('same bytes');
      expect(await target.head('site/versions/01J/entities.en.jsonl')).toMatchObject({
        bytes: 10,
        cacheControl: TEXT.cacheControl,
      });
      expect(await target.head('site/cas/cd/src')).toMatchObject({ cacheControl: JSONL.cacheControl });
      // a copy is independent: replacing the copy leaves the source alone
      await target.put('site/versions/01J/entities.en.jsonl', 'changed', TEXT);
      expect((await target.get('site/cas/cd/src'))!.toString()).toBe('same bytes');
    });

    it('copy of a missing source fails', async () => {
      await expect(target.copy('site/cas/zz/missing', 'site/x.json', TEXT)).rejects.toThrow();
      expect(await target.head('site/x.json')).toBeUndefined();
    });

    it('list returns every key under a prefix, sorted, and nothing outside it', async () => {
      await target.put('other/latest/manifest.json', '{}', TEXT);
      await target.put('site/versions/01K/b.json', 'b', TEXT);
      await target.put('site/versions/01K/a.json', 'a', TEXT);
      const keys = await target.list('site/versions/');
      expect(keys).toEqual([
        'site/versions/01J/entities.en.jsonl',
        'site/versions/01K/a.json',
        'site/versions/01K/b.json',
      ]);
      expect(await target.list('nowhere/')).toEqual([]);
      expect(await target.list('other/')).toEqual(['other/latest/manifest.json']);
    });

    it('delete removes an object from get, head and list', async () => {
      await target.delete('site/versions/01K/a.json');
      expect(await target.head('site/versions/01K/a.json')).toBeUndefined();
      expect(await target.list('site/versions/01K/')).toEqual(['site/versions/01K/b.json']);
    });

    it('localFolder gives a local folder holding the named objects of a prefix; a name the store lacks is absent', async () => {
      await target.put('site/versions/01M/manifest.json', '{"v":"01M"}', TEXT);
      await target.put('site/versions/01M/facts.en.jsonl', 'line\n', JSONL);
      await target.put('site/versions/01N/facts.en.jsonl', 'other version\n', JSONL);
      const dir = await target.localFolder(
        'site/versions/01M/',
        ['manifest.json', 'facts.en.jsonl', 'qa.en.jsonl'],
        join(scratch, 'folder'),
      );
      expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe('{"v":"01M"}');
      expect(readFileSync(join(dir, 'facts.en.jsonl'), 'utf8')).toBe('line\n');
      expect(existsSync(join(dir, 'qa.en.jsonl'))).toBe(false);
      await expect(
        target.localFolder('site/versions/01M/', ['../01N/facts.en.jsonl'], join(scratch, 'escape')),
      ).rejects.toThrow(/invalid object key/);
    });

    it('publicAlias: a mirror, when there is one, is a folder of its own per domain, outside every site folder', async () => {
      const a = target.publicAlias({ domain: 'a.example', websiteId: 'web_a', siteHash: '00000000000000aa' });
      const b = target.publicAlias({ domain: 'b.example', websiteId: 'web_b', siteHash: '00000000000000bb' });
      for (const alias of [a, b]) {
        if (alias.mirrorPrefix === undefined) continue;
        expect(alias.mirrorPrefix).toMatch(/^[^/]+\/$/);
        expect(alias.mirrorPrefix.startsWith('00000000000000')).toBe(false);
      }
      expect(a.mirrorPrefix === undefined || a.mirrorPrefix !== b.mirrorPrefix).toBe(true);
    });

    it('publicAlias: announce writes outside the site folder (the mirror holds the manifest); withdraw undoes what serves it; both can repeat and leave the site folder alone', async () => {
      const site = { domain: 'shop.example', websiteId: 'web_shop', siteHash: '0123456789abcdef' };
      const alias = target.publicAlias(site);
      await target.put(`${site.siteHash}/latest/manifest.json`, '{"pointer":true}', TEXT);
      const siteKeysBefore = await target.list(`${site.siteHash}/`);
      const everything = async () => new Set(await target.list(''));
      const before = await everything();
      const body = Buffer.from('{"node_version":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}');
      await alias.withdraw(); // a domain never announced: harmless
      await alias.announce(body);
      await alias.announce(body);
      const written = [...(await everything())].filter((k) => !before.has(k));
      expect(written.length).toBeGreaterThan(0);
      for (const key of written) expect(key.startsWith(`${site.siteHash}/`), key).toBe(false);
      if (alias.mirrorPrefix !== undefined)
        expect((await target.get(`${alias.mirrorPrefix}manifest.json`))?.toString()).toBe(body.toString());
      await alias.withdraw();
      await alias.withdraw();
      if (alias.mirrorPrefix !== undefined)
        expect(await target.head(`${alias.mirrorPrefix}manifest.json`)).toBeUndefined();
      expect(await target.list(`${site.siteHash}/`)).toEqual(siteKeysBefore);
    });

    it('rejects keys that could escape the root', async () => {
      for (const bad of ['../x', '/abs', 'a//b', 'a/./b', 'a/../b'])
        await expect(target.put(bad, 'x', TEXT)).rejects.toThrow(/invalid object key/);
    });
  });
}
