import { z } from 'zod';
import { SEARCH_MODES, SearchHitSchema } from '../knowledge/index.js';
import { EntityRecordSchema, FactRecordSchema, ManifestFileSchema } from '../../platform/node-format/index.js';

/**
 * The output schemas of the three tools (MCP `outputSchema`, 2025-06-18): what each tool's
 * `structuredContent` holds. Hits are the management API's SearchHitSchema and records are the
 * node-format schemas, so a change there shows here too.
 */
const NodeVersion = z.string().describe('The live node version (a ULID) the answer was read from');

export const SearchOutputSchema = z.object({
  node_version: NodeVersion,
  query: z.string(),
  mode: z
    .enum(SEARCH_MODES)
    .describe(
      'How the hits were ranked: the mode asked for, or the one the default came to (docs/knowledge.md "Modes")',
    ),
  hits: z.array(SearchHitSchema).describe('Best first'),
});

export const EntityFactsOutputSchema = z.object({
  node_version: NodeVersion,
  entity: EntityRecordSchema,
  facts: z.array(FactRecordSchema).describe('The exported facts of the entity, most important first'),
});

export const NodeFilesOutputSchema = z.object({
  node_version: NodeVersion,
  node_version_label: z.string().nullable(),
  domain: z.string(),
  files: z.array(
    ManifestFileSchema.pick({
      path: true,
      content_type: true,
      checksum: true,
      bytes: true,
      records: true,
      language: true,
    }),
  ),
});
