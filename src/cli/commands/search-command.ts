import type { Command } from 'commander';
import type { SearchHit, SearchQuery } from '../../sdk/api/index.js';
import { addApiOptions, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';

const KINDS = ['entity', 'fact', 'chunk'];
const MODES = ['keyword', 'vector', 'hybrid'];
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** A snippet for a terminal: matched terms *starred*, the HTML escapes undone. */
export function plainSnippet(snippet: string): string {
  return snippet.replace(/<\/?mark>/g, '*').replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);
}

const formatHits = (hits: readonly SearchHit[], q: string) =>
  hits.length === 0
    ? `no hits for ${JSON.stringify(q)}`
    : hits
        .map((h) => `${h.kind.padEnd(6)} ${h.title} (${h.id}, score ${h.score})\n       ${plainSnippet(h.snippet)}`)
        .join('\n');

/** `nodectl search <words...> --website <id>`: GET /v1/websites/:id/knowledge/search over HTTP. */
export function registerSearchCommand(program: Command): void {
  addApiOptions(
    program
      .command('search')
      .description(
        "search a website's knowledge (what the next publish would export) over the management API (--url and --api-key, NODECTL_URL and NODECTL_API_KEY, or nodectl login)",
      )
      .argument('<words...>', 'the words to find (all must match; "quoted phrases" match as a phrase)'),
    true,
  )
    .requiredOption('--website <websiteId>', 'the website')
    .option('--kind <kind>', `only hits of this kind (${KINDS.join(', ')})`)
    .option(
      '--mode <mode>',
      `how to rank (${MODES.join(', ')}); default hybrid when the website has vectors, else keyword (docs/knowledge.md)`,
    )
    .option('--limit <n>', 'how many hits', '10')
    .action(
      async (
        words: string[],
        opts: ApiFlags & { website: string; kind?: string; mode?: string; limit: string },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        if (opts.kind !== undefined && !KINDS.includes(opts.kind))
          throw new UsageError(`--kind must be one of ${KINDS.join(', ')}; got ${opts.kind}`);
        if (opts.mode !== undefined && !MODES.includes(opts.mode))
          throw new UsageError(`--mode must be one of ${MODES.join(', ')}; got ${opts.mode}`);
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
          throw new UsageError('--limit must be a whole number from 1 to 1000');
        const q = words.join(' ');
        const { connectApi, reportApiFailure } = await import('../api-connection.js');
        const { client } = await connectApi(opts);
        const hits: SearchHit[] = [];
        let cursor: string | undefined;
        do {
          const query: SearchQuery = {
            q,
            limit: Math.min(100, limit - hits.length),
            ...(opts.kind !== undefined ? { kind: opts.kind as SearchQuery['kind'] } : {}),
            ...(opts.mode !== undefined ? { mode: opts.mode as SearchQuery['mode'] } : {}),
            ...(cursor !== undefined ? { cursor } : {}),
          };
          const page = await client.knowledge.search(opts.website, query).catch(reportApiFailure);
          hits.push(...page.items);
          cursor = page.next_cursor ?? undefined;
        } while (cursor !== undefined && hits.length < limit);
        ctx.out.result(hits, () => formatHits(hits, q));
      },
    );
}
