import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';

/**
 * `nodectl mcp --website <id>`: serves the website's live node to an agent over MCP on stdio
 * (docs/contract.md#mcp). stdout carries the protocol only; everything human goes to stderr.
 */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      "serve one website's published knowledge to an agent over MCP (stdio): search, entity facts, node files",
    )
    .option('--website <id>', 'the website to serve (its plan must carry cap.mcp and it must be verified)')
    .option('--target <fs|s3>', 'publish store to read the live node from (env NODECTL_PUBLISH_TARGET, default fs)')
    .action(async (opts: { website?: string; target?: string }, command: Command) => {
      if (!opts.website) throw new UsageError('--website <id> is required');
      if (opts.target !== undefined && opts.target !== 'fs' && opts.target !== 's3')
        throw new UsageError(`--target must be fs or s3 (got ${opts.target})`);
      const websiteId = opts.website;
      const ctx = commandContext(command, opts.target ? { publishTarget: opts.target } : {});
      const { withControlDb } = await import('./admin-command.js');
      const { loadWebsiteInfo } = await import('../../control/records/index.js');
      const { countsAsVerified } = await import('../../control/records/index.js');
      const { capabilitiesOf } = await import('../../control/plans/index.js');
      const { embeddingsSettingsOf, embeddingsWebsite } = await import('../../ingest/embeddings/index.js');
      const [site, planAllowsVectors] = await withControlDb(
        ctx,
        (db) => [loadWebsiteInfo(db, websiteId), embeddingsWebsite(db, websiteId) !== undefined] as const,
      );
      if (!site)
        throw new UsageError(
          `no website ${websiteId} in ${ctx.config.settings.dataDir}; see \`nodectl admin website list\``,
        );
      if (!capabilitiesOf(site.plan).includes('cap.mcp'))
        throw new UsageError(
          `website ${websiteId} is on the ${site.plan} plan, which lacks cap.mcp: MCP access needs pro or business (\`nodectl admin org create --plan pro\`)`,
        );
      if (!countsAsVerified(site.verification.state))
        throw new UsageError(
          `website ${websiteId} is not verified (verification ${site.verification.state}): verify ownership of ${site.domain} first`,
        );

      const { createTargetFromSettings, nodeStoreReader } = await import('../../output/publish/index.js');
      const { readLiveNode } = await import('../../output/knowledge/index.js');
      const target = await createTargetFromSettings(ctx.config.settings);
      // Kept open while serving: resources/read reads the node's files from the store.
      const store = nodeStoreReader(target);
      const embeddings = embeddingsSettingsOf(ctx.config.settings);
      const node = await readLiveNode(store, websiteId, { vectors: embeddings !== undefined }).catch(
        async (error: unknown) => {
          await target.close();
          throw error;
        },
      );
      if (!node) {
        await target.close();
        throw new CliError(
          `website ${websiteId} has no live node in ${target.description}: run \`nodectl publish --website ${websiteId}\` first`,
        );
      }

      const { createKnowledgeMcpServer } = await (await import('../../output/mcp/index.js')).loadMcpServer();
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const version = node.manifest.node_version;
      const server = createKnowledgeMcpServer(websiteId, node, {
        readFile: (path) => store.versionFile(websiteId, version, path),
        // The plan as it stands at start, as the other checks above; the query embedded by the operator's provider.
        embeddings,
        planAllowsVectors,
        onProviderFailure: (error) =>
          process.stderr.write(`nodectl mcp: query not embedded (${error.message}): answering keyword hits\n`),
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
      await server.connect(transport);
      process.stderr.write(
        `nodectl mcp: serving ${site.domain} (node ${node.manifest.node_version}, ${node.entities.length} entities, ${node.facts.length} facts, ${node.chunks.length} chunks, ${node.vectors ? `${node.vectors.chunkIds.length} vectors of ${node.vectors.model}` : embeddings ? 'no vectors' : 'embeddings off'}) on stdio\n`,
      );
      // The agent ends the session by closing stdin.
      process.stdin.once('end', () => void server.close());
      await closed;
      await target.close();
    });
}
