import type { FlipResult } from './rollback.js';
import type { PublishResult } from './publish-node.js';
import { NO_REJECTIONS } from './publish-rejections.js';
import type { PublishedVersionView, PublishResultView, RollbackResultView } from './schemas.js';
import { listStoredVersions, type StoredVersion } from './store.js';
import { siteHashOf } from './layout.js';
import type { PublishTarget } from './targets/types.js';

const fileView = (f: PublishResult['files'][number]) => ({
  path: f.path,
  bytes: f.bytes,
  checksum: f.checksum,
  state: f.state,
});
const changeView = (c: PublishResult['changes'][number]) => ({ path: c.path, change: c.change });

/** A publish as POST /v1/websites/:id/publish answers it (PublishResultSchema). */
export function presentPublishResult(result: PublishResult): PublishResultView {
  return {
    versionUlid: result.versionUlid,
    versionLabel: result.versionLabel,
    files: result.files.map(fileView),
    changes: result.changes.map(changeView),
    recordCount: result.recordCount,
    cdnPath: result.cdnPath,
    publicUrl: result.publicUrl,
    previousVersion: result.previousVersion,
    alreadyLive: result.alreadyLive,
    dryRun: result.dryRun,
    bytesUploaded: result.bytesUploaded,
    bytesCarried: result.bytesCarried,
    rejected: result.rejected ?? NO_REJECTIONS,
  };
}

/** A rollback as POST /v1/websites/:id/rollback answers it (RollbackResultSchema). */
export function presentRollbackResult(result: FlipResult): RollbackResultView {
  return {
    versionUlid: result.versionUlid,
    versionLabel: result.versionLabel,
    previousVersion: result.previousVersion,
    files: result.files.map(fileView),
    changes: result.changes.map(changeView),
  };
}

function presentVersion(version: StoredVersion): PublishedVersionView {
  return {
    node_version: version.node_version,
    node_version_label: version.node_version_label ?? null,
    generated_at: version.generated_at,
    live: version.live,
    purged: version.purged === true,
  };
}

/**
 * The published versions of a website the store holds, newest first, each with its live and
 * purged flags: what `nodectl versions` prints and GET /v1/websites/:id/versions pages through.
 */
export async function listWebsiteVersions(target: PublishTarget, websiteId: string): Promise<PublishedVersionView[]> {
  return (await listStoredVersions(target, siteHashOf(websiteId))).map(presentVersion);
}
