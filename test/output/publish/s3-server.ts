import S3rver from 's3rver';
import { makeTempDir } from '../../helpers/paths.js';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Settings-style environment for the binary (NODECTL_S3_*). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts a real S3-protocol server (s3rver) on 127.0.0.1 with an ephemeral port and a temp folder. */
export async function startLocalS3(bucket = 'nodes'): Promise<LocalS3> {
  const temp = makeTempDir('nodectl-s3rver-');
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: temp.dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const info = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${info.port}`;
  return {
    endpoint,
    bucket,
    env: {
      NODECTL_S3_BUCKET: bucket,
      NODECTL_S3_ENDPOINT: endpoint,
      NODECTL_S3_FORCE_PATH_STYLE: 'true',
      NODECTL_S3_ACCESS_KEY_ID: 'S3RVER',
      NODECTL_S3_SECRET_ACCESS_KEY: 'S3RVER',
      NODECTL_S3_REGION: 'us-east-1',
    },
    async stop() {
      await server.close();
      temp.cleanup();
    },
  };
}
