import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { createS3Target } from '../../../src/output/publish/targets/s3.js';
import { makeTempDir } from '../../helpers/paths.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';
import { runTargetConformance } from './target-conformance.js';

const fsRoot = makeTempDir('nodectl-fs-target-');
runTargetConformance(
  'fs',
  async () => createFsTarget({ root: fsRoot.dir }),
  async () => fsRoot.cleanup(),
);

let s3: LocalS3 | undefined;
runTargetConformance(
  's3 (s3rver)',
  async () => {
    s3 = await startLocalS3();
    return createS3Target({
      bucket: s3.bucket,
      prefix: 'pfx',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
  },
  async () => s3?.stop(),
);

describe('fs target: handed-over files', () => {
  const meta = { contentType: 'application/x-ndjson', cacheControl: 'public, max-age=31536000, immutable' };

  it('links a handed-over file into the store (no second copy of its bytes) and copies any other', async () => {
    const { dir, cleanup } = makeTempDir('nodectl-fs-handover-');
    try {
      const target = createFsTarget({ root: join(dir, 'nodes') });
      const handed = join(dir, 'handed.jsonl');
      const kept = join(dir, 'kept.jsonl');
      writeFileSync(handed, 'a\n');
      writeFileSync(kept, 'b\n');
      await target.putFile('site/cas/aa/handed', handed, { ...meta, handOver: true });
      await target.putFile('site/cas/bb/kept', kept, meta);
      expect(statSync(target.filePath('site/cas/aa/handed')).ino).toBe(statSync(handed).ino);
      expect(statSync(target.filePath('site/cas/bb/kept')).ino).not.toBe(statSync(kept).ino);
      // the caller's own file stays its own: writing it again does not change the stored object
      writeFileSync(kept, 'changed\n');
      expect((await target.get('site/cas/bb/kept'))!.toString()).toBe('b\n');
    } finally {
      cleanup();
    }
  });
});
