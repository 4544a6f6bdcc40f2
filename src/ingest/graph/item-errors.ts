/**
 * Why content.ingest refused one item, as a stable code (the job's itemErrors and docs/ingest.md
 * "Item errors" list them): the message may change wording, the code does not.
 */
export const ITEM_ERROR_CODES = [
  'item.body_missing',
  'item.body_invalid',
  'item.extraction_failed',
  'item.key_mismatch',
  'item.merge_failed',
] as const;
export type ItemErrorCode = (typeof ITEM_ERROR_CODES)[number];

/** An item's refusal with its code; any other error thrown while extracting one item is item.extraction_failed. */
export class ItemRefusedError extends Error {
  constructor(
    readonly code: ItemErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ItemRefusedError';
  }
}

/** The code of an error that failed one item in extraction. */
export const itemErrorCodeOf = (error: unknown): ItemErrorCode =>
  error instanceof ItemRefusedError ? error.code : 'item.extraction_failed';
