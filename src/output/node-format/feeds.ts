import { z } from 'zod';
import {
  ChecksumSchema,
  ConfidenceSchema,
  HttpUrlSchema,
  ImportanceSchema,
  LanguageSchema,
  NodePathSchema,
  ProvenanceSchema,
  RecordIdSchema,
  SchemaVersionSchema,
  SourceIdSchema,
  TimestampSchema,
  UlidSchema,
} from './common.js';

/** Record kinds as named in the feed files. */
export const RecordKindSchema = z.enum(['entity', 'fact', 'relationship', 'chunk', 'qa', 'source']);

/** One line of priority-feed.jsonl: the highest-importance entities and facts, best first. */
export const PriorityFeedRecordSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    rank: z.number().int().min(1).describe('1 is the most important record'),
    record_id: RecordIdSchema,
    record_kind: z.enum(['entity', 'fact']),
    file: NodePathSchema.describe('the node file that holds the record'),
    importance: ImportanceSchema,
    language: LanguageSchema,
    label: z.string().min(1).describe('entity name, or "subject: predicate = value" for a fact'),
    source_url: HttpUrlSchema.optional(),
  })
  .meta({ title: 'Priority feed entry (priority-feed.jsonl)' });

/**
 * One line of citations.jsonl: where a derived record comes from, to cite it without joining
 * files (the source's title is in sources.jsonl under source_id).
 */
export const CitationRecordSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    record_id: RecordIdSchema,
    record_kind: z.enum(['entity', 'fact', 'relationship']),
    source_id: SourceIdSchema,
    source_url: HttpUrlSchema,
    retrieved_at: TimestampSchema.describe("the source's last_seen_at"),
    provenance_method: ProvenanceSchema,
    confidence: ConfidenceSchema,
  })
  .meta({ title: 'Citation (citations.jsonl)' });

/**
 * One line of changes.jsonl: a record (or a whole file) added, changed or removed against the
 * previous version. content_hash is sha256 over the record's JSON line without its line feed
 * (for a file: the file checksum of the manifest).
 */
export const ChangeRecordSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    change: z.enum(['added', 'changed', 'removed']),
    record_kind: z.union([RecordKindSchema, z.literal('file')]),
    record_id: z.union([RecordIdSchema, NodePathSchema]).describe('stable record id, or the path for record_kind file'),
    file: NodePathSchema,
    content_hash: ChecksumSchema.optional().describe('hash in this version; absent when removed'),
    previous_content_hash: ChecksumSchema.optional().describe('hash in the previous version; absent when added'),
    since_version: UlidSchema.optional().describe(
      'node_version this change is measured against; absent for a first version',
    ),
  })
  .meta({ title: 'Change (changes.jsonl)' });

export type PriorityFeedRecord = z.infer<typeof PriorityFeedRecordSchema>;
export type CitationRecord = z.infer<typeof CitationRecordSchema>;
export type ChangeRecord = z.infer<typeof ChangeRecordSchema>;
