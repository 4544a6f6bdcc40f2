import { createFsTarget } from '../../src/publish/targets/fs.js';
import { createS3Target } from '../../src/publish/targets/s3.js';
import { makeTempDir } from '../helpers/paths.js';
import { startLocalS3, type LocalS3 } from './s3-server.js';
import { runTargetConformance } from './target-conformance.js';

const fsRoot = makeTempDir('nodectl-fs-target-');
runTargetConformance('fs', async () => createFsTarget({ root: fsRoot.dir }), async () => fsRoot.cleanup());

let s3: LocalS3 | undefined;
runTargetConformance(
  's3 (s3rver)',
  async () => {
    s3 = await startLocalS3();
    return createS3Target({ bucket: s3.bucket, prefix: 'pfx', endpoint: s3.endpoint, forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
  },
  async () => s3?.stop(),
);
