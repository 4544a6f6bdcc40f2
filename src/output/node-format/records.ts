import { z } from 'zod';
import {
  ChecksumSchema,
  ChunkIdSchema,
  ConfidenceSchema,
  DateOrTimestampSchema,
  EntityIdSchema,
  FactIdSchema,
  FreshnessSchema,
  HttpUrlSchema,
  ImportanceSchema,
  LanguageSchema,
  ProvenanceSchema,
  QaIdSchema,
  RelIdSchema,
  SchemaVersionSchema,
  SourceIdSchema,
  TimestampSchema,
} from './common.js';

/**
 * One line of each per-language record file and of sources.jsonl (docs/contract.md#node-files). Strict
 * objects: a field that is not listed here (hidden, stale, pinned, editorialStatus, reviewedBy,
 * originalValue, status, ...) fails validation, so export rules 4 and 5 hold by construction.
 */
export const EntityRecordSchema = z
  .strictObject({
    id: EntityIdSchema,
    schema_version: SchemaVersionSchema,
    type: z.string().min(1).describe('schema.org type name'),
    name: z.string().min(1),
    language: LanguageSchema,
    confidence: ConfidenceSchema,
    provenance_method: ProvenanceSchema,
    source_id: SourceIdSchema.optional(),
    source_url: HttpUrlSchema.optional(),
    attributes: z.record(z.string(), z.unknown()).optional().describe('open object; the only extensible field'),
  })
  .meta({ title: 'Entity record (entities.<lang>.jsonl)' });

export const FactValueSchema = z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown())]);

export const FactRecordSchema = z
  .strictObject({
    id: FactIdSchema,
    schema_version: SchemaVersionSchema,
    subject: z.string().min(1),
    predicate: z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case'),
    value: FactValueSchema,
    language: LanguageSchema,
    confidence: ConfidenceSchema,
    provenance_method: ProvenanceSchema,
    unit: z.string().min(1).optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional(),
    display: z.string().min(1).optional(),
    subject_entity_id: EntityIdSchema.optional(),
    importance: ImportanceSchema.optional(),
    freshness: FreshnessSchema.optional(),
    valid_from: DateOrTimestampSchema.optional(),
    valid_until: DateOrTimestampSchema.optional(),
    source_id: SourceIdSchema.optional(),
    source_url: HttpUrlSchema.optional(),
  })
  .meta({ title: 'Fact record (facts.<lang>.jsonl)' });

export const RelationshipRecordSchema = z
  .strictObject({
    id: RelIdSchema,
    schema_version: SchemaVersionSchema,
    type: z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case'),
    from_entity_id: EntityIdSchema,
    to_entity_id: EntityIdSchema,
    resolution_status: z.literal('resolved').describe('only resolved relationships are exported (export rule 3)'),
    language: LanguageSchema,
    confidence: ConfidenceSchema,
    provenance_method: ProvenanceSchema,
    source_id: SourceIdSchema.optional(),
    source_url: HttpUrlSchema.optional(),
  })
  .meta({ title: 'Relationship record (relationships.<lang>.jsonl)' });

export const ChunkRecordSchema = z
  .strictObject({
    id: ChunkIdSchema,
    schema_version: SchemaVersionSchema,
    text: z.string().min(1),
    tokens_estimate: z.number().int().min(0),
    language: LanguageSchema,
    entity_ids: z.array(EntityIdSchema).optional(),
    source_id: SourceIdSchema.optional(),
  })
  .meta({ title: 'Chunk record (chunks.<lang>.jsonl)' });

export const QaRecordSchema = z
  .strictObject({
    id: QaIdSchema,
    schema_version: SchemaVersionSchema,
    question: z.string().min(1),
    answer: z.string().min(1),
    language: LanguageSchema,
    fact_ids: z.array(FactIdSchema).optional(),
    entity_ids: z.array(EntityIdSchema).optional(),
    confidence: ConfidenceSchema.optional(),
    provenance_method: ProvenanceSchema.optional(),
  })
  .meta({ title: 'Synthetic Q&A record (qa.<lang>.jsonl)' });

export const SourceRecordSchema = z
  .strictObject({
    id: SourceIdSchema,
    schema_version: SchemaVersionSchema,
    url: HttpUrlSchema,
    content_type: z.string().min(1),
    last_seen_at: TimestampSchema,
    checksum: ChecksumSchema,
    language: LanguageSchema,
    trust: z.number().min(0).max(1).describe('derived from the verification-method strength (trust_score)'),
    canonical_url: HttpUrlSchema.optional(),
    title: z.string().min(1).optional(),
  })
  .meta({ title: 'Source record (sources.jsonl)' });

export type EntityRecord = z.infer<typeof EntityRecordSchema>;
export type FactRecord = z.infer<typeof FactRecordSchema>;
export type RelationshipRecord = z.infer<typeof RelationshipRecordSchema>;
export type ChunkRecord = z.infer<typeof ChunkRecordSchema>;
export type QaRecord = z.infer<typeof QaRecordSchema>;
export type SourceRecord = z.infer<typeof SourceRecordSchema>;
