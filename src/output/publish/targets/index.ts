import type { Settings } from '../../../platform/config/settings.js';
import { AppError } from '../../../platform/errors/app-error.js';
import { dataDirLayout } from '../../../platform/storage/data-dir.js';
import { createFsTarget } from './fs.js';
import type { PublishTarget } from './types.js';

export type { PublishTarget, PutOptions, ObjectInfo } from './types.js';

/** The target the settings name: fs (under <data-dir>/nodes) or s3 (loaded lazily). */
export async function createTargetFromSettings(
  settings: Settings,
  kind: 'fs' | 's3' = settings.publishTarget,
): Promise<PublishTarget> {
  if (kind === 'fs') return createFsTarget({ root: dataDirLayout(settings.dataDir).nodesDir });
  if (!settings.s3Bucket)
    throw new AppError(
      'validation.failed',
      'The s3 publish target needs a bucket: set NODECTL_S3_BUCKET (or s3Bucket in the config file).',
      { details: { fields: [{ path: 's3Bucket', message: 'required for publishTarget s3' }] } },
    );
  const { createS3Target } = await import('./s3.js');
  return createS3Target({
    bucket: settings.s3Bucket,
    prefix: settings.s3Prefix,
    endpoint: settings.s3Endpoint,
    region: settings.s3Region,
    forcePathStyle: settings.s3ForcePathStyle,
    accessKeyId: settings.s3AccessKeyId,
    secretAccessKey: settings.s3SecretAccessKey,
  });
}
