import type { Command } from 'commander';
import { addApiOptions, apiRequested, type ApiFlags } from '../api-connection.js';
import { commandContext, type CommandContext } from '../context.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { cliIo } from '../io.js';
import type { PublishProgressView } from '../../output/publish/index.js';

interface PublishFlags extends ApiFlags {
  website?: string;
  node?: string;
  target?: string;
  golden?: string;
  allowDrop?: boolean;
  dryRun?: boolean;
  force?: boolean;
  buildTime?: string;
}

/** Exit code of a publish refused by a gate or by validation (docs/publishing.md). */
export const EXIT_REFUSED = 3;
const REFUSED = new Set([
  'publish.validation_failed',
  'publish.drop_gate',
  'publish.golden_mismatch',
  'node.uuid_leak',
  'entitlement.limit_reached',
]);
const exitFor = (code: string) => (REFUSED.has(code) ? EXIT_REFUSED : EXIT.failure);

/** A version's files in validate's words (the compiler's formatFileCount): the API's files, then manifest.json. */
const formatFileCount = (files: number) => `${files} file${files === 1 ? '' : 's'} and manifest.json`;

/** What the summary reads of a publish: the local result and the route's answer both have it. */
interface PublishSummary {
  versionUlid: string;
  versionLabel: string;
  previousVersion: string | null;
  dryRun: boolean;
  alreadyLive: boolean;
  files: ReadonlyArray<{ path: string; bytes: number; state: string }>;
  changes: ReadonlyArray<{ change: string }>;
  recordCount: number;
  bytesUploaded: number;
  bytesCarried: number;
  publicUrl: string;
}

/**
 * The publish summary, the same whether the publish ran here or
 * on a daemon (`destination`: the target, or the daemon's URL).
 */
export function formatPublishSummary(result: PublishSummary, destination: string): string {
  const uploaded = result.files.filter((f) => f.state === 'uploaded');
  const carried = result.files.filter((f) => f.state === 'carried').length;
  const other = result.files.length - uploaded.length - carried;
  return [
    result.dryRun
      ? `dry run: nothing was written to ${destination}`
      : result.alreadyLive
        ? `nothing changed: the live version ${result.versionUlid} (${result.versionLabel}) already holds this content and stays live (--force publishes a new version anyway)`
        : `published ${result.versionUlid} (${result.versionLabel}) to ${destination}`,
    ...(result.dryRun ? uploaded.map((f) => `  would upload ${f.path} (${f.bytes} bytes)`) : []),
    // The API's meanings: `files` lists every file but manifest.json, so the parts add up to it;
    // records are knowledge records (recordCount), as validate prints them.
    `files: ${formatFileCount(result.files.length)} (${uploaded.length} uploaded, ${carried} carried forward${other ? `, ${other} other` : ''}), records: ${result.recordCount}`,
    `bytes: ${result.bytesUploaded} uploaded, ${result.bytesCarried} carried forward${result.dryRun ? ' (would be)' : ''}`,
    `changes vs ${result.previousVersion ?? '(nothing live)'}: ${['added', 'changed', 'removed', 'unchanged'].map((c) => `${result.changes.filter((x) => x.change === c).length} ${c}`).join(', ')}`,
    `public URL: ${result.publicUrl}`,
  ].join('\n');
}

/** The progress view of a publish: an ink bar on a terminal, plain stderr lines elsewhere, none under --json. */
async function createProgressView(json: boolean): Promise<PublishProgressView | undefined> {
  const { createInkPublishProgress, createPlainPublishProgress } = await import('../../output/publish/index.js');
  const { wantsProgressBar } = await import('../terminal.js');
  if (wantsProgressBar(json)) return createInkPublishProgress();
  return json ? undefined : createPlainPublishProgress((line) => void cliIo().stderr.write(line + '\n'));
}

/** `nodectl publish --url --api-key --website <id>`: POST /v1/websites/:id/publish, the same summary and exit codes. */
async function publishOverHttp(ctx: CommandContext, opts: PublishFlags): Promise<void> {
  const { connectApi, reportApiFailure } = await import('../api-connection.js');
  const api = await connectApi(opts);
  if (!ctx.out.json)
    ctx.out.info(`publishing ${opts.website} on ${api.url}: the daemon compiles, checks and uploads it`);
  const body = { allowDrop: opts.allowDrop, dryRun: opts.dryRun, force: opts.force };
  // The daemon streams where the publish stands; --json asks for the plain answer, as it prints nothing else.
  const view = await createProgressView(ctx.out.json);
  try {
    const result = view
      ? await api.client.publish.publishWithProgress(opts.website!, body, (event) => view.update(event))
      : await api.client.publish.publish(opts.website!, body);
    view?.stop();
    ctx.out.result(result, () => formatPublishSummary(result, api.url));
  } catch (error) {
    view?.stop();
    return reportApiFailure(error, exitFor);
  }
}

/** `nodectl publish`: compile (or take a compiled node) and publish it with the atomic sequence. */
export function registerPublishCommand(program: Command): void {
  addApiOptions(
    program
      .command('publish [fixture-dir]')
      .description(
        "publish a website's node (--website), a fixture, or a compiled node (--node) to the fs or s3 target, here or on a daemon (--url)",
      )
      .option(
        '--website <id>',
        "compile and publish this website's graph (from the data directory, or on the daemon with --url)",
      ),
  )
    .option('--node <dir>', 'publish an already compiled node directory')
    .option('--target <fs|s3>', 'publish target (env NODECTL_PUBLISH_TARGET, default fs)')
    .option('--golden <dir>', 'refuse unless the compiled node equals this directory byte for byte')
    .option(
      '--allow-drop',
      'publish even when the record count falls more than publishMaxDrop against the live version',
    )
    .option('--dry-run', 'show what would be uploaded and carried forward; write nothing')
    .option('--force', 'publish a new version even when its content equals the live version')
    .option('--build-time <rfc3339>', 'frozen build time of the compile (default: now, or the fixture build_time)')
    .addHelpText(
      'after',
      '\nExit codes: 0 published (or nothing changed against the live version, or a dry run), 1 failed (retryable publish.conflict / publish.atomic_conflict included), 2 bad usage, 3 refused by a gate or validation (publish.validation_failed, node.uuid_leak, publish.drop_gate, publish.golden_mismatch, entitlement.limit_reached: the plan\'s publishes per day are used up). Over HTTP the same codes; --json prints the route\'s answer.\n\nProgress goes to stderr, here and over HTTP (the daemon streams it): a bar on a terminal, else plain lines: one per step with its objects, one per compile pass with the knowledge records written so far ("compile: 3 of 10 passes (facts), 5000 records"), and the uploaded / carried-forward files of upload and patch. Nothing with --json.',
    )
    .action(async (fixtureDir: string | undefined, flags: PublishFlags, command: Command) => {
      // The website: --website, else NODECTL_WEBSITE, else the project file (nodectl init),
      // unless a fixture or a compiled node is the source.
      const { projectDefaults } = await import('../project-file.js');
      const opts: PublishFlags =
        fixtureDir === undefined && flags.node === undefined
          ? { ...flags, website: projectDefaults({ website: flags.website }).website }
          : flags;
      if (apiRequested(opts)) {
        if (
          fixtureDir !== undefined ||
          opts.node !== undefined ||
          opts.golden !== undefined ||
          opts.target !== undefined ||
          opts.buildTime !== undefined
        ) {
          throw new UsageError(
            'over HTTP (--url, --api-key, NODECTL_URL or NODECTL_API_KEY) the daemon compiles and publishes the website: give --website <id> (with --allow-drop, --dry-run or --force); a fixture, --node, --golden, --target and --build-time are local only',
          );
        }
        if (opts.website === undefined)
          throw new UsageError(
            '--website <id> is required over HTTP (or NODECTL_WEBSITE, or website in nodectl.json: nodectl init)',
          );
        return publishOverHttp(commandContext(command), opts);
      }
      if (opts.target !== undefined && opts.target !== 'fs' && opts.target !== 's3')
        throw new UsageError(`--target must be fs or s3 (got ${opts.target})`);
      const sources = [fixtureDir !== undefined, opts.node !== undefined].filter(Boolean).length;
      if (sources > 1) throw new UsageError('give a fixture directory or --node <dir>, not both');
      if (sources === 0 && opts.website === undefined)
        throw new UsageError('give --website <id>, a fixture directory, or --node <compiled-dir>');
      if (opts.buildTime !== undefined && opts.node !== undefined)
        throw new UsageError('--build-time applies to a compile; --node is already compiled');
      const ctx = commandContext(command, opts.target ? { publishTarget: opts.target } : {});
      const { existsSync } = await import('node:fs');
      for (const dir of [fixtureDir, opts.node, opts.golden])
        if (dir !== undefined && !existsSync(dir)) throw new UsageError(`${dir} does not exist`);
      const { runPublish, createTargetFromSettings } = await import('../../output/publish/index.js');
      const { openControlDb } = await import('../../platform/storage/index.js');
      const { dataDirLayout } = await import('../../platform/storage/index.js');
      const { isAppError, storageUnavailableError } = await import('../../platform/errors/index.js');
      const { trackPublishProgress } = await import('../../output/publish/index.js');
      const view = await createProgressView(ctx.out.json);
      const progress = view && trackPublishProgress(view);
      const settings = ctx.config.settings;
      const controlDb = openControlDb(dataDirLayout(settings.dataDir), settings.controlStore);
      const target = await createTargetFromSettings(settings);
      try {
        const source =
          opts.node !== undefined
            ? { kind: 'node' as const, dir: opts.node }
            : fixtureDir !== undefined
              ? { kind: 'fixture' as const, dir: fixtureDir }
              : { kind: 'website' as const, websiteId: opts.website! };
        const result = await runPublish({
          settings,
          controlDb,
          target,
          source,
          websiteId: opts.website,
          allowDrop: opts.allowDrop,
          golden: opts.golden,
          dryRun: opts.dryRun,
          force: opts.force,
          buildTime: opts.buildTime,
          progress,
        });
        progress?.stop();
        ctx.out.result({ ...result, target: target.kind }, () => formatPublishSummary(result, target.description));
      } catch (thrown) {
        progress?.stop();
        const error = storageUnavailableError(thrown) ?? thrown;
        if (isAppError(error)) {
          throw new CliError(error.message, exitFor(error.code), error.code, {
            details: error.details,
            retryable: error.retryable,
          });
        }
        throw error;
      } finally {
        await target.close();
        controlDb.close();
      }
    });
}
