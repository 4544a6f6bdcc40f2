import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';

interface CompileFlags {
  out?: string;
  buildTime?: string;
  website?: string;
  previous?: string;
}

/** How many rejected records the human output lists; --json lists up to 1,000. */
const REJECTED_SHOWN = 20;

/** `nodectl compile <fixture-dir> --out <dir>` and `nodectl compile --website <id> --out <dir>`. */
export function registerCompileCommand(program: Command): void {
  program
    .command('compile [fixture-dir]')
    .description("compile a fixture (site.json + items.jsonl) or a website's graph into node files")
    .option('--out <dir>', 'directory to write the node into (replaced atomically)')
    .option('--website <id>', "compile this website's graph from the data directory instead of a fixture")
    .option('--build-time <rfc3339>', "frozen build time (default: the fixture's build_time; for --website, now)")
    .option('--previous <dir>', 'the previous version of the node, for changes.jsonl, versions.json and the label')
    .addHelpText('after', '\nExit codes: 0 compiled, 1 the node failed validation or the input is bad, 2 bad usage.')
    .action(async (fixtureDir: string | undefined, opts: CompileFlags, command: Command) => {
      const ctx = commandContext(command);
      if (!opts.out) throw new UsageError('--out <dir> is required');
      if ((fixtureDir === undefined) === (opts.website === undefined))
        throw new UsageError('give either a fixture directory or --website <id>, not both');
      const { buildTimeAt, compileToDirectory, compileWebsite, loadFixture, readPreviousNode } =
        await import('../../compiler/index.js');
      const previous = opts.previous ? await readPreviousNode(opts.previous) : undefined;
      if (opts.previous && previous === undefined)
        throw new UsageError(`--previous ${opts.previous} holds no manifest.json`);
      let result;
      {
        if (fixtureDir !== undefined) {
          const { buildGraphFromItems } = await import('../../ingest/graph/index.js');
          let fixture;
          try {
            fixture = loadFixture(fixtureDir);
          } catch (error) {
            throw new CliError((error as Error).message);
          }
          const buildTime = opts.buildTime ?? fixture.buildTime;
          const graph = buildGraphFromItems(fixture.items, fixture.site, {
            receivedAt: new Date(Date.parse(buildTime)).toISOString().replace(/\.000Z$/, 'Z'),
            editorial: fixture.editorial,
          });
          try {
            result = await compileToDirectory(graph.reader, fixture.site, opts.out, {
              ...fixture.presentation,
              buildTime,
              ...(previous ? { previous } : {}),
            });
          } finally {
            graph.close();
          }
        } else {
          // A served website without --build-time is built now: the shell reads the clock, never the core.
          const buildTime = opts.buildTime ?? buildTimeAt(Date.now());
          const { nodeVectorsOf } = await import('../../ingest/embeddings/index.js');
          const embeddings = nodeVectorsOf(ctx.config.settings);
          result = await compileWebsite(ctx.config.settings.dataDir, opts.website!, opts.out, {
            buildTime,
            controlStore: ctx.config.settings.controlStore,
            ...(embeddings === undefined ? {} : { embeddings }),
            ...(previous ? { previous } : {}),
          });
        }
      }
      const done = result;
      const rejectedTotal = Object.values(done.counts.rejected).reduce((a, b) => a + b, 0);
      ctx.out.result(
        {
          out: opts.out,
          node_version: done.nodeVersion,
          node_version_label: done.nodeVersionLabel,
          generated_at: done.generatedAt,
          files: done.files,
          counts: done.counts,
          rejected_total: rejectedTotal,
          rejected: done.rejected,
        },
        () =>
          [
            `compiled ${done.files.length} files into ${opts.out}`,
            `node_version ${done.nodeVersion} (${done.nodeVersionLabel}), generated_at ${done.generatedAt}`,
            `records: ${done.counts.entities} entities, ${done.counts.facts} facts, ${done.counts.relationships} relationships, ${done.counts.chunks} chunks, ${done.counts.qa} Q&A, ${done.counts.sources} sources`,
            `withheld by the export rules: ${Object.entries(done.counts.withheld)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}`,
            ...formatRejected(rejectedTotal, done.counts.rejected, done.rejected),
          ].join('\n'),
      );
    });
}

/** The rejected-records part of the human output: totals per kind, then the first few records. */
function formatRejected(
  total: number,
  perKind: Record<string, number>,
  records: Array<{ file: string; id: string; path: string; message: string }>,
): string[] {
  if (total === 0) return ['rejected: none'];
  const lines = [
    `rejected (left out of the node, references to them removed): ${total} records: ${Object.entries(perKind)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  ];
  for (const r of records.slice(0, REJECTED_SHOWN))
    lines.push(`  ${r.file} ${r.id} ${r.path || '(record)'}: ${r.message}`);
  if (total > REJECTED_SHOWN)
    lines.push(`  ... and ${total - REJECTED_SHOWN} more (--json lists up to ${records.length})`);
  return lines;
}
