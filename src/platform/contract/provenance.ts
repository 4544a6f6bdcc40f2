/** How a record was obtained, strongest first (docs/contract.md#fact-rules). */
export const PROVENANCE_METHODS = ['cms_field', 'schema_org', 'seo_meta', 'text_extraction', 'llm_inferred'] as const;
export type ProvenanceMethod = (typeof PROVENANCE_METHODS)[number];

/** Rank of a provenance in the survivor rule: lower wins (its place in PROVENANCE_METHODS). */
export const PROVENANCE_RANK: Readonly<Record<ProvenanceMethod, number>> = Object.freeze(
  Object.fromEntries(PROVENANCE_METHODS.map((method, rank) => [method, rank])) as Record<ProvenanceMethod, number>,
);
