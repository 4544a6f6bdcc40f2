import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { nodeBaseUrl, type Settings } from '../../platform/config/index.js';
import { AppError } from '../../platform/errors/index.js';
import { emitEvent } from '../../control/events/index.js';
import type {
  CompileProgress,
  NodeSink,
  PreviousNode,
  ValidationReport,
  ParallelWrittenNodeCheck,
  KnownLinesCheck,
} from '../../compiler/index.js';
import { type Db, assertFreeSpace, dataDirLayout, graphDbPath } from '../../platform/storage/index.js';
import { assertPublishAllowed, countPublish } from '../../control/plans/index.js';
import { addWebsiteEvent, METRICS } from '../../control/analytics/index.js';
import { loadWebsiteInfo } from '../../control/records/index.js';
import { siteHashOf, siteKeys } from './layout.js';
import { acquirePublishLock, type PublishLock } from './lock.js';
import type { PublishProgress } from './progress.js';
import { publishNode, type PublishResult } from './publish-node.js';
import { rejectionsOf, type PublishRejections } from './publish-rejections.js';
import { isRecordFile, readLiveManifest } from './store.js';
import type { PublishTarget } from './targets/types.js';
import { createPublishWorkDir } from './work-dirs.js';

/** What to publish: a website's graph, a fixture folder, or an already compiled node. */
export type PublishSource =
  { kind: 'website'; websiteId: string } | { kind: 'fixture'; dir: string } | { kind: 'node'; dir: string };

export interface RunPublishOptions {
  settings: Settings;
  controlDb: Db;
  target: PublishTarget;
  source: PublishSource;
  /** With a fixture or a node: the website it must belong to; default the one it names. */
  websiteId?: string;
  allowDrop?: boolean;
  golden?: string;
  dryRun?: boolean;
  /**
   * Publish a new version even when the content equals the live version's; default false. Its
   * build time is then at least a second after the live version's.
   */
  force?: boolean;
  /** RFC 3339 build time for a website compile; default now (second precision). */
  buildTime?: string;
  now?: () => number;
  progress?: PublishProgress;
  /** The API origin's port when the daemon listens on an ephemeral one (for the public URL). */
  listenPort?: number;
  /**
   * The site's publish lock when the caller already holds it (the
   * daemon, around a worker); default: taken here, before the compile.
   */
  lock?: PublishLock;
  /**
   * Publish even when the publishes-per-day quota is used up (a republish
   * that removes erased items); it still counts. Default false.
   */
  quotaExempt?: boolean;
  /**
   * Test seam, in process only (a function does not reach the worker): wraps the sink the
   * compiler writes through (ahead of the check of the bytes as written, when there is one), so
   * a test can put a defect into the compiled files and see the publish refuse them. Default none.
   */
  alterCompiledFiles?: (sink: NodeSink) => NodeSink;
}

/**
 * The one publish entry point of the CLI and the HTTP route: compiles when needed (into a temp
 * folder, with the live version as the compiler's previous so its record-level changes are
 * measured against what is served), then runs the atomic sequence of publishNode.
 */
export async function runPublish(options: RunPublishOptions): Promise<PublishResult> {
  const now = options.now ?? Date.now;
  let ownLock: PublishLock | undefined;
  // The lock covers the compile too: two publishes of one site never interleave, so a slower,
  // older build cannot flip after a newer one (the other gets 409 publish.conflict at once).
  const lockSite = (websiteId: string) => {
    if (!options.dryRun && !options.lock && !ownLock)
      ownLock = acquirePublishLock(options.controlDb, websiteId, { now });
  };
  // The publishes-per-day quota (docs/contract.md#plans): checked before the compile and again
  // before the flip (a fixture or node names its website only once read); a dry run publishes nothing.
  const assertQuota = (websiteId: string) => {
    if (!options.dryRun && !options.quotaExempt) assertPublishAllowed(options.controlDb, websiteId, now());
  };
  // Below the free-space floor nothing is compiled: a disk filling up mid-publish must not be what stops it.
  assertFreeSpace(options.settings.dataDir, options.settings.minFreeDiskMb);
  const work = createPublishWorkDir(options.settings.dataDir, now());
  let written: ParallelWrittenNodeCheck | undefined;
  let known: KnownLinesCheck | undefined;
  try {
    let nodeDir: string;
    let websiteId = options.websiteId;
    let rejected: PublishRejections | undefined;
    let writtenReport: ValidationReport | undefined;
    const source = options.source;
    if (source.kind === 'website') {
      websiteId = source.websiteId;
      assertSomethingToPublish(options.settings, options.controlDb, websiteId);
      assertQuota(websiteId);
      lockSite(websiteId);
    }
    if (source.kind === 'node') {
      nodeDir = source.dir;
    } else {
      const compiler = await import('../../compiler/index.js');
      nodeDir = join(work, 'node');
      // The compile of a large site is the longest step: say it started, so it never looks like a
      // hang (a streamed answer starts here: every refusal before it is a plain HTTP error).
      const progress = options.progress;
      progress?.compile({
        done: 0,
        total: compiler.COMPILE_PASSES.length,
        pass: compiler.COMPILE_PASSES[0],
        records: 0,
      });
      const onProgress = progress && ((p: CompileProgress) => progress.compile(p));
      // A first version is checked as it is written (validateNode's checks on the same bytes,
      // not read back: the files the target is given are the ones those bytes went to; each
      // record passed its line schema in the compiler just before it was serialized), in a worker
      // thread alongside the compile once the node is large enough to pay for one. A compile
      // against a live version is checked from the lines it wrote (KnownLinesCheck): a line that
      // is the live version's validated bytes is not parsed again, only the others are; when its
      // lines were not all known, the folder is checked afterwards, against the live version.
      const { KnownLinesCheck, ParallelWrittenNodeCheck } = await import('../../compiler/index.js');
      const alter = options.alterCompiledFiles ?? ((sink: NodeSink) => sink);
      const compileAgainst = (previous: PreviousNode | undefined) => {
        const reporting = onProgress ? { onProgress } : {};
        if (previous !== undefined) {
          const check = (known = new KnownLinesCheck(nodeDir, previous.files));
          return { previous, wrapSink: (sink: NodeSink) => alter(check.sink(sink)), ...reporting };
        }
        const check = (written = new ParallelWrittenNodeCheck(nodeDir, {
          recordsPassedSchemas: true,
          // Its facts are then told apart by their ids, not by keys held (DerivedFacts).
          ...(source.kind === 'website' ? { websiteId: source.websiteId } : {}),
        }));
        return { wrapSink: (sink: NodeSink) => alter(check.sink(sink)), ...reporting };
      };
      if (source.kind === 'website') {
        const previous = await readLivePrevious(options.target, source.websiteId, join(work, 'previous'));
        const asked = options.buildTime ?? compiler.buildTimeAt(now());
        // Forced, the same content built in the live version's second would be that version again
        // (node_version is the build second and the content): a forced one is built a second later.
        const liveMs = previous === undefined ? undefined : Date.parse(previous.generatedAt);
        const buildTime =
          options.force && liveMs !== undefined && Date.parse(asked) <= liveMs
            ? compiler.buildTimeAt(liveMs + 1000)
            : asked;
        const { nodeVectorsOf } = await import('../../ingest/embeddings/index.js');
        const embeddings = nodeVectorsOf(options.settings);
        rejected = rejectionsOf(
          await compiler.compileWebsite(options.settings.dataDir, source.websiteId, nodeDir, {
            buildTime,
            controlStore: options.settings.controlStore,
            ...(embeddings === undefined ? {} : { embeddings }),
            ...compileAgainst(previous),
          }),
        );
      } else {
        let fixture;
        try {
          fixture = compiler.loadFixture(source.dir);
        } catch (error) {
          throw new AppError(
            'publish.validation_failed',
            `The fixture ${source.dir} cannot be read: ${(error as Error).message}`,
            { details: { issues: [] } },
          );
        }
        if (websiteId !== undefined && websiteId !== fixture.site.websiteId)
          throw new AppError(
            'publish.validation_failed',
            `The fixture belongs to website ${fixture.site.websiteId}, not ${websiteId}.`,
            { details: { issues: [] } },
          );
        websiteId = fixture.site.websiteId;
        lockSite(websiteId);
        const previous = await readLivePrevious(options.target, websiteId, join(work, 'previous'));
        const buildTime = options.buildTime ?? fixture.buildTime;
        const { buildGraphFromItems } = await import('../../ingest/graph/index.js');
        const graph = buildGraphFromItems(fixture.items, fixture.site, {
          receivedAt: new Date(Date.parse(buildTime)).toISOString().replace(/\.000Z$/, 'Z'),
          editorial: fixture.editorial,
        });
        try {
          rejected = rejectionsOf(
            await compiler.compileToDirectory(graph.reader, fixture.site, nodeDir, {
              ...fixture.presentation,
              buildTime,
              ...compileAgainst(previous),
            }),
          );
        } finally {
          graph.close();
        }
      }
      writtenReport = (await written?.report()) ?? (await known?.report());
    }
    if (websiteId === undefined) {
      try {
        websiteId = (JSON.parse(readFileSync(join(nodeDir, 'manifest.json'), 'utf8')) as { website_id: string })
          .website_id;
      } catch {
        throw new AppError(
          'publish.validation_failed',
          `${nodeDir} holds no readable manifest.json: give a compiled node directory.`,
          { details: { issues: [{ code: 'manifest.missing', file: 'manifest.json' }] } },
        );
      }
    }
    lockSite(websiteId);
    assertQuota(websiteId);
    const lock = options.lock ?? ownLock;
    lock?.renew(); // a long compile used part of the lock's lifetime
    const result = await publishNode({
      target: options.target,
      nodeDir,
      websiteId,
      controlDb: options.controlDb,
      ...(lock ? { lock } : {}),
      nodeBaseUrl: nodeBaseUrl(options.settings, options.listenPort),
      maxDrop: options.settings.publishMaxDrop,
      allowDrop: options.allowDrop,
      golden: options.golden,
      dryRun: options.dryRun,
      force: options.force,
      now,
      progress: options.progress,
      ownCompile: source.kind !== 'node',
      ...(writtenReport === undefined ? {} : { writtenReport }),
    });
    if (!result.dryRun && !result.alreadyLive) {
      // The flip is a write to the target, outside any SQLite transaction: node.published is
      // written right after it succeeded, with the publish count, in the control database
      // (docs/webhooks.md "Events"); a crash between the two loses the event, never invents one.
      const db = options.controlDb;
      db.transaction(() => {
        countPublish(db, result.websiteId, now());
        addWebsiteEvent(db, result.websiteId, METRICS.publishedVersions, 1, now());
        emitEvent(
          db,
          {
            type: 'node.published',
            website_id: result.websiteId,
            data: {
              node_version: result.versionUlid,
              node_version_label: result.versionLabel,
              previous_version: result.previousVersion,
              public_url: result.publicUrl,
              rollback: false,
            },
          },
          now(),
        );
      }).immediate();
    }
    return rejected ? { ...result, rejected } : result;
  } finally {
    written?.close();
    ownLock?.release();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A website publish needs content: 404 website.not_found for an unknown website, 409
 * publish.nothing_to_publish when nothing has been ingested for it yet (it has no graph).
 */
function assertSomethingToPublish(settings: Settings, controlDb: Db, websiteId: string): void {
  if (loadWebsiteInfo(controlDb, websiteId) === undefined)
    throw new AppError('website.not_found', `Website ${websiteId} does not exist in ${settings.dataDir}.`);
  if (existsSync(graphDbPath(dataDirLayout(settings.dataDir), websiteId))) return;
  throw new AppError(
    'publish.nothing_to_publish',
    `Nothing has been ingested for website ${websiteId} yet, so there is no graph to publish. Push content first (nodectl push, or POST /v1/ingest/batch), wait for the ingest jobs to finish, then publish.`,
  );
}

/**
 * The live version as the compiler's PreviousNode: its manifest, versions.json and record files,
 * read from a local folder the target gives (fs: versions/<ulid>/ in place; S3: downloaded into
 * `dir`).
 */
export async function readLivePrevious(
  target: PublishTarget,
  websiteId: string,
  dir: string,
): Promise<PreviousNode | undefined> {
  const siteHash = siteHashOf(websiteId);
  const live = await readLiveManifest(target, siteHash);
  if (!live) return undefined;
  const { readPreviousNode } = await import('../../compiler/index.js');
  const wanted = [
    'manifest.json',
    'versions.json',
    ...live.files.filter((f) => isRecordFile(f.path)).map((f) => f.path),
  ];
  // The live version passed validateNode before it was published (validated-live.ts).
  return readPreviousNode(await target.localFolder(siteKeys(siteHash).version(live.node_version, ''), wanted, dir), {
    validated: true,
  });
}
