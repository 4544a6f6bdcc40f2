/** A failed ingest call: the contract error (code, message, details) or a transport failure. */
export class IngestError extends Error {
  constructor(
    message: string,
    /** Contract error code, or `network.error` when no HTTP answer came back. */
    readonly code: string,
    /** HTTP status; 0 for a network error. */
    readonly status: number,
    readonly details: Record<string, unknown> = {},
    readonly retryable = false,
    readonly requestId?: string,
    /** Attempts made, retries included. */
    readonly attempts = 1,
  ) {
    super(message);
    this.name = 'IngestError';
  }
}
