import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';

interface CompileFlags { out?: string; buildTime?: string; website?: string; previous?: string }

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
      if ((fixtureDir === undefined) === (opts.website === undefined)) throw new UsageError('give either a fixture directory or --website <id>, not both');
      const { compileToDirectory, compileWebsite, loadFixture, readPreviousNode } = await import('../../compiler/cli-support.js');
      const previous = opts.previous ? await readPreviousNode(opts.previous) : undefined;
      if (opts.previous && previous === undefined) throw new UsageError(`--previous ${opts.previous} holds no manifest.json`);
      let result;
      {
        if (fixtureDir !== undefined) {
          const { buildGraphFromItems } = await import('../../graph/build-from-items.js');
          let fixture;
          try {
            fixture = loadFixture(fixtureDir);
          } catch (error) {
            throw new CliError((error as Error).message);
          }
          const buildTime = opts.buildTime ?? fixture.buildTime;
          const graph = buildGraphFromItems(fixture.items, fixture.site, { receivedAt: new Date(Date.parse(buildTime)).toISOString().replace(/\.000Z$/, 'Z'), editorial: fixture.editorial });
          try {
            result = await compileToDirectory(graph.reader, fixture.site, opts.out, { ...fixture.presentation, buildTime, ...(previous ? { previous } : {}) });
          } finally {
            graph.close();
          }
        } else {
          // A served website without --build-time is built now: the shell reads the clock, never the core.
          const buildTime = opts.buildTime ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          result = await compileWebsite(ctx.config.settings.dataDir, opts.website!, opts.out, { buildTime, ...(previous ? { previous } : {}) });
        }
      }
      ctx.out.result({ out: opts.out, node_version: result.nodeVersion, node_version_label: result.nodeVersionLabel, generated_at: result.generatedAt, files: result.files, counts: result.counts }, () =>
        [
          `compiled ${result.files.length} files into ${opts.out}`,
          `node_version ${result.nodeVersion} (${result.nodeVersionLabel}), generated_at ${result.generatedAt}`,
          `records: ${result.counts.entities} entities, ${result.counts.facts} facts, ${result.counts.relationships} relationships, ${result.counts.chunks} chunks, ${result.counts.qa} Q&A, ${result.counts.sources} sources`,
          `withheld by the export rules: ${Object.entries(result.counts.withheld).map(([k, v]) => `${k} ${v}`).join(', ')}`,
        ].join('\n'),
      );
    });
}
