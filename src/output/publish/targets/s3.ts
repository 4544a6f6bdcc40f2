import { createReadStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { mirrorAlias } from './public-alias.js';
import { assertKey, type PublishTarget, type PutOptions } from './types.js';

export interface S3TargetOptions {
  bucket: string;
  /** Key prefix inside the bucket, without leading or trailing slash; default none. */
  prefix?: string;
  /** Endpoint for MinIO, R2, s3rver; default AWS. */
  endpoint?: string;
  /** Default us-east-1. */
  region?: string;
  /** Path-style addressing (MinIO and local servers need it); default false. */
  forcePathStyle?: boolean;
  /** Static credentials; default the AWS default chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
}

type Sdk = typeof import('@aws-sdk/client-s3');

/**
 * The S3 target (AWS, MinIO, R2 or any S3-protocol server). The SDK is imported when the target
 * is created, so commands that never publish to S3 never load it. `copy` is a server-side
 * CopyObject with MetadataDirective REPLACE: carrying a file forward never sends its bytes.
 */
export async function createS3Target(options: S3TargetOptions): Promise<PublishTarget> {
  // The SDK's documented switch for its Node 20 end-of-support warning, unless the user set it: it asks
  // the application to move to Node 22, which nodectl states itself (README, docs/decisions.md).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const sdk: Sdk = await import('@aws-sdk/client-s3');
  const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  const client: S3Client = new sdk.S3Client({
    region: options.region ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    ...(options.accessKeyId && options.secretAccessKey
      ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
      : {}),
    // Checksums on every request cost a pass over each body; the publisher verifies sha256 itself.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = options.bucket;
  const full = (key: string) => {
    assertKey(key);
    return prefix === '' ? key : `${prefix}/${key}`;
  };
  const notFound = (error: unknown) => {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
  };
  const meta = (o: PutOptions) => ({
    ContentType: o.contentType,
    CacheControl: o.cacheControl,
    ...(o.sha256 ? { Metadata: { sha256: o.sha256 } } : {}),
  });

  const target: PublishTarget = {
    kind: 's3',
    description: `s3://${Bucket}${prefix ? '/' + prefix : ''}`,
    async put(key, body, o) {
      await client.send(
        new sdk.PutObjectCommand({
          Bucket,
          Key: full(key),
          Body: typeof body === 'string' ? Buffer.from(body) : body,
          ...meta(o),
        }),
      );
    },
    async putFile(key, localPath, o) {
      const size = statSync(localPath).size;
      await client.send(
        new sdk.PutObjectCommand({
          Bucket,
          Key: full(key),
          Body: createReadStream(localPath),
          ContentLength: size,
          ...meta(o),
        }),
      );
    },
    async copy(fromKey, toKey, o) {
      const source = `${Bucket}/${full(fromKey)}`.split('/').map(encodeURIComponent).join('/');
      await client.send(
        new sdk.CopyObjectCommand({
          Bucket,
          Key: full(toKey),
          CopySource: source,
          MetadataDirective: 'REPLACE',
          ...meta(o),
        }),
      );
    },
    async head(key) {
      try {
        const r = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: full(key) }));
        return {
          key,
          bytes: r.ContentLength ?? 0,
          contentType: r.ContentType,
          cacheControl: r.CacheControl,
          ...(r.Metadata?.sha256 ? { sha256: r.Metadata.sha256 } : {}),
        };
      } catch (error) {
        if (notFound(error)) return undefined;
        throw error;
      }
    },
    async get(key) {
      try {
        const r = await client.send(new sdk.GetObjectCommand({ Bucket, Key: full(key) }));
        return Buffer.from(await r.Body!.transformToByteArray());
      } catch (error) {
        if (notFound(error)) return undefined;
        throw error;
      }
    },
    async delete(key) {
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: full(key) }));
    },
    async list(listPrefix) {
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      const strip = prefix === '' ? 0 : prefix.length + 1;
      do {
        const r = await client.send(
          new sdk.ListObjectsV2Command({
            Bucket,
            Prefix: prefix === '' ? listPrefix : `${prefix}/${listPrefix}`,
            ContinuationToken,
          }),
        );
        for (const o of r.Contents ?? []) if (o.Key) keys.push(o.Key.slice(strip));
        ContinuationToken = r.IsTruncated ? r.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    },
    async localFolder(folder, names, scratchDir) {
      mkdirSync(scratchDir, { recursive: true });
      for (const name of names) {
        const body = await target.get(folder + name);
        if (body === undefined) continue;
        const file = join(scratchDir, ...name.split('/'));
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, body);
      }
      return scratchDir;
    },
    publicAlias: (site) => mirrorAlias(target, site),
    async close() {
      client.destroy();
    },
  };
  return target;
}
