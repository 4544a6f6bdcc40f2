import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidationReport } from '../../compiler/index.js';
import { AppError } from '../../platform/errors/index.js';
import { ManifestSchema, type Manifest } from '../../platform/node-format/index.js';
import type { Db } from '../../platform/storage/index.js';
import { faultPoint, mapLimit } from './faults.js';
import { assertNotBehindLive, CONCURRENCY, flipLatest, verifyVersion } from './flip.js';
import { assertMatchesGolden, assertNodeValid, refuseInvalidNode } from './integrity.js';
import { hexOfChecksum, sha256Hex, siteHashOf, siteKeys, versionedCache } from './layout.js';
import { acquirePublishLock, type PublishLock } from './lock.js';
import { planPublish, type PlannedSend } from './plan.js';
import { diffFiles, patchNode, sameContentAsLive, type FileChange } from './patch.js';
import { SILENT_PROGRESS, type PublishProgress } from './progress.js';
import { validatedLiveNode } from './validated-live.js';
import { listStoredVersions, nextVersionLabel, readLiveManifest, recordCount } from './store.js';
import type { PublishedFile } from './published-file.js';
import type { PublishRejections } from './publish-rejections.js';
import type { PublishTarget } from './targets/types.js';

export interface PublishNodeOptions {
  target: PublishTarget;
  /** A compiled node directory (manifest.json plus the files it names). */
  nodeDir: string;
  /** The website the node belongs to; must equal manifest.website_id. */
  websiteId: string;
  /** control.sqlite of the data directory: holds the per-site publish lock. */
  controlDb: Db;
  /**
   * The site's publish lock when the caller already holds it (and releases it); default: taken here after validation.
   */
  lock?: PublishLock;
  /** `{node_base_url}` for the public URL in the result. */
  nodeBaseUrl: string;
  /** Largest share of records the version may drop against the live one (settings.publishMaxDrop, default 0.5). */
  maxDrop: number;
  /** Skip the drop gate; default false. */
  allowDrop?: boolean;
  /** Refuse unless the compiled node equals this directory byte for byte; default none. */
  golden?: string;
  /** Report what would be uploaded; write nothing; default false. */
  dryRun?: boolean;
  /** Publish a new version even when its content equals the live version's; default false. */
  force?: boolean;
  /** Clock (ms); default Date.now. The label's day comes from it. */
  now?: () => number;
  progress?: PublishProgress;
  /**
   * nodeDir is this publish's own compile (runPublish's temp folder, removed afterwards), never a
   * folder someone else gave: its records passed their line schemas as the compiler wrote them
   * (validation does not run them again), and its files are handed over to the target (fs links
   * them into cas/ instead of copying). Default false.
   */
  ownCompile?: boolean;
  /**
   * The validation report of this publish's own compile, checked as the compiler wrote nodeDir's
   * files (WrittenNodeCheck, docs/publishing.md "Gates"; runPublish does so for a first
   * version): nodeDir is then not read again for validation. Default: validateNode reads nodeDir.
   */
  writtenReport?: ValidationReport;
}

export type { PublishedFile };

export interface PublishResult {
  websiteId: string;
  domain: string;
  siteHash: string;
  versionUlid: string;
  versionLabel: string;
  previousVersion: string | null;
  dryRun: boolean;
  /**
   * The live version already holds this content (the same version, or a new build
   * of the same content): nothing was written, versionUlid names the live version.
   */
  alreadyLive: boolean;
  files: PublishedFile[];
  changes: FileChange[];
  bytesUploaded: number;
  bytesCarried: number;
  objectsWritten: number;
  recordCount: number;
  /** `{node_base_url}/{domain}` */
  cdnPath: string;
  /** `{node_base_url}/{domain}/manifest.json` */
  publicUrl: string;
  durationMs: number;
  /**
   * Graph records the compile left out (set by runPublish when
   * it compiled the node; absent for an already compiled node).
   */
  rejected?: PublishRejections;
}

function readCompiledManifest(nodeDir: string): Manifest {
  let text: string;
  try {
    text = readFileSync(join(nodeDir, 'manifest.json'), 'utf8');
  } catch {
    throw new AppError(
      'publish.validation_failed',
      `${nodeDir} holds no manifest.json: give a compiled node directory.`,
      { details: { issues: [{ code: 'manifest.missing', file: 'manifest.json' }] } },
    );
  }
  const parsed = ManifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new AppError(
      'publish.validation_failed',
      `manifest.json of ${nodeDir} fails its schema: ${parsed.error.issues[0]?.message}`,
      {
        details: {
          issues: parsed.error.issues.slice(0, 20).map((i) => ({
            code: 'schema.invalid',
            file: 'manifest.json',
            message: `${i.path.join('.')}: ${i.message}`,
          })),
        },
      },
    );
  return parsed.data;
}

/**
 * Publishes a compiled node with the atomic sequence (docs/publishing.md):
 * check (validate, golden, lock, drop gate) -> upload (immutable bytes into cas/, per-version
 * copies into versions/<ulid>/) -> patch (versions.json, changes.jsonl, openapi.json, manifest)
 * -> verify (HEAD every manifest file) -> latest (serving copies) -> flip (latest/manifest.json,
 * the single last mutating write). An error or a kill before the flip leaves the previous
 * version serving, whole.
 */
export async function publishNode(options: PublishNodeOptions): Promise<PublishResult> {
  const started = Date.now();
  const now = options.now ?? Date.now;
  const progress = options.progress ?? SILENT_PROGRESS;
  const { target, nodeDir } = options;
  progress.step('check', 1);
  const compiled = readCompiledManifest(nodeDir);
  if (compiled.website_id !== options.websiteId)
    throw new AppError(
      'publish.validation_failed',
      `The node belongs to website ${compiled.website_id}, not ${options.websiteId}.`,
      { details: { issues: [{ code: 'manifest.website_id', file: 'manifest.json' }] } },
    );
  if (options.golden) assertMatchesGolden(nodeDir, options.golden);
  const siteHash = siteHashOf(options.websiteId);
  const keys = siteKeys(siteHash);
  if (options.writtenReport !== undefined) refuseInvalidNode(options.writtenReport, nodeDir);
  else
    await assertNodeValid(
      nodeDir,
      await validatedLiveNode(target, siteHash, await readLiveManifest(target, siteHash), compiled),
      { ownCompile: options.ownCompile },
    );

  const ownLock =
    options.dryRun || options.lock ? undefined : acquirePublishLock(options.controlDb, options.websiteId, { now });
  const lock = options.lock ?? ownLock;
  try {
    // Read again under the lock: another publish may have flipped meanwhile.
    const live = await readLiveManifest(target, siteHash);
    const records = recordCount(compiled);
    if (live && !options.allowDrop) {
      const before = recordCount(live);
      if (before > 0 && (before - records) / before > options.maxDrop) {
        throw new AppError(
          'publish.drop_gate',
          `This version has ${records} records against ${before} live (a ${Math.round(((before - records) / before) * 100)} % drop, more than the allowed ${Math.round(options.maxDrop * 100)} %). Nothing was published; pass --allow-drop if the drop is intended.`,
          { details: { records, liveRecords: before, maxDrop: options.maxDrop } },
        );
      }
    }
    const base = {
      websiteId: options.websiteId,
      domain: compiled.domain,
      siteHash,
      previousVersion: live?.node_version ?? null,
      dryRun: Boolean(options.dryRun),
      recordCount: records,
      cdnPath: `${options.nodeBaseUrl}/${compiled.domain}`,
      publicUrl: `${options.nodeBaseUrl}/${compiled.domain}/manifest.json`,
    };
    // Same ULID (same build time and content), or a new build of the same content: the live
    // version already says all of it, so nothing is written (unless forced).
    if (
      live &&
      (live.node_version === compiled.node_version || (!options.force && sameContentAsLive(nodeDir, compiled, live)))
    ) {
      const files = live.files.map((f): PublishedFile => ({
        path: f.path,
        bytes: f.bytes,
        checksum: f.checksum,
        immutable: f.immutable,
        state: 'carried',
      }));
      progress.step('done', 0);
      return {
        ...base,
        previousVersion: live.node_version,
        versionUlid: live.node_version,
        versionLabel: live.node_version_label ?? '',
        alreadyLive: true,
        files,
        changes: diffFiles(live.files, live.files) /* every file unchanged */,
        bytesUploaded: 0,
        bytesCarried: files.reduce((s, f) => s + f.bytes, 0),
        objectsWritten: 0,
        durationMs: Date.now() - started,
      };
    }

    // latest/ never moves backwards on a publish (a slower, older build losing a race): only a rollback does.
    assertNotBehindLive(live, compiled.node_version, options.websiteId);

    const stored = await listStoredVersions(target, siteHash);
    if (stored.some((v) => v.node_version === compiled.node_version) && !options.dryRun) {
      // The store already holds this exact version (an earlier publish): flip back to it as it was.
      const { flipToStoredVersion } = await import('./rollback.js');
      const flipped = await flipToStoredVersion(target, options.websiteId, compiled.node_version, progress, {
        rollback: false,
      });
      return { ...base, ...flipped, alreadyLive: false, durationMs: Date.now() - started };
    }
    const label = nextVersionLabel(stored, now());
    const patched = patchNode(
      nodeDir,
      compiled,
      live,
      stored.map(({ live: _live, ...v }) => v),
      label,
    );
    const manifest = patched.manifest;

    // Plan: which bytes the store already holds (cas/<aa>/<sha>) and which must be sent, once each.
    const shas = [...new Set(manifest.files.map((f) => hexOfChecksum(f.checksum)))];
    const holds = await mapLimit(shas, CONCURRENCY, async (sha) => (await target.head(keys.cas(sha))) !== undefined);
    const plan = planPublish(manifest.files, patched.bodies, new Set(shas.filter((_, i) => holds[i])));
    const files = plan.files.map((f): PublishedFile => ({ ...f }));
    const result = {
      ...base,
      versionUlid: manifest.node_version,
      versionLabel: label,
      alreadyLive: false,
      files,
      changes: patched.fileChanges,
      bytesUploaded: plan.bytesUploaded + patched.manifestBody.length,
      bytesCarried: plan.bytesCarried,
    };
    if (options.dryRun) {
      progress.step('done', 0);
      return { ...result, objectsWritten: 0, durationMs: Date.now() - started };
    }

    // Steps upload (compiled files) and patch (rewritten files): each sends its new bodies into
    // cas/, all of them, and only then copies cas/ into versions/<ulid>/.
    let objectsWritten = 0;
    const ulid = manifest.node_version;
    for (const step of ['upload', 'patch'] as const) {
      const sends = plan.sends.filter((s) => s.step === step);
      const copies = plan.copies.filter((c) => c.step === step);
      const total = sends.length + copies.length;
      progress.step(step, total);
      await mapLimit(sends, CONCURRENCY, async (s, i) => {
        await faultPoint(step, i, total);
        await sendToCas(target, keys.cas(s.sha), nodeDir, s, options.ownCompile === true);
        objectsWritten++;
        progress.advance(s.file.path, 'uploaded');
      });
      await mapLimit(copies, CONCURRENCY, async (c, i) => {
        await faultPoint(step, sends.length + i, total);
        await target.copy(keys.cas(c.sha), keys.version(ulid, c.file.path), {
          contentType: c.file.content_type,
          cacheControl: versionedCache(c.file.immutable),
          sha256: c.sha,
        });
        objectsWritten++;
        progress.advance(c.file.path, c.state === 'carried' ? 'carried' : 'written');
      });
      lock?.renew();
    }

    // Step verify, then the version's manifest marks versions/<ulid>/ complete.
    await verifyVersion(target, siteHash, manifest, progress);
    await target.put(keys.version(ulid, 'manifest.json'), patched.manifestBody, {
      contentType: 'application/json',
      cacheControl: versionedCache(false),
    });
    objectsWritten++;
    lock?.renew();

    // Steps latest and flip.
    objectsWritten += await flipLatest(target, siteHash, options.websiteId, manifest, patched.manifestBody, progress, {
      rollback: false,
    });
    progress.step('done', 0);
    return { ...result, objectsWritten, durationMs: Date.now() - started };
  } finally {
    ownLock?.release();
  }
}

/**
 * Sends one planned body into cas/: a patched body as it is, a compiled file streamed from the
 * node directory (handed over when the folder is this publish's own compile: fs links it).
 */
async function sendToCas(
  target: PublishTarget,
  casKey: string,
  nodeDir: string,
  send: PlannedSend,
  handOver: boolean,
): Promise<void> {
  const meta = { contentType: send.file.content_type, cacheControl: versionedCache(true), sha256: send.sha };
  if (send.body !== undefined) return target.put(casKey, send.body, meta);
  const local = join(nodeDir, send.file.path);
  if (statSync(local).size !== send.file.bytes)
    throw new AppError('publish.validation_failed', `${send.file.path} changed while publishing.`);
  await target.putFile(casKey, local, { ...meta, handOver });
}

/** sha256 of a patched body, for tests and the dry run. */
export const checksumOf = (body: Buffer) => `sha256:${sha256Hex(body)}`;
