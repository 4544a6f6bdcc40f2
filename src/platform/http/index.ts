/** The public face of src/platform/http: what the rest of src/ may import from it. */
export { REDACTED_PATHS, createHttpApp } from './create-app.js';
export { assertUtf8Charset, decodeUtf8Body } from './decode-body.js';
export { errorEnvelope, sendData, successEnvelope } from './envelope.js';
export { formatServerSentEvent, sendEventStream, wantsEventStream } from './event-stream.js';
export { sendErrorReply, toAppError } from './errors.js';
export { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, ListQuerySchema, pageOf, parseListQuery } from './list-query.js';
export type { ListQuery } from './list-query.js';
export { createBufferedRateLimitStore } from './rate-limit-buffer.js';
export type { BufferedRateLimitStore } from './rate-limit-buffer.js';
export { createSqliteRateLimitStore } from './rate-limit-sqlite.js';
export { createPostgresRateLimitStore, prunePostgresRateLimits } from './rate-limit-postgres.js';
export { consumeRateLimit, pruneRateLimits, setRateLimitHeaders } from './rate-limit.js';
export type { RateLimitRule, RateLimitStore } from './rate-limit.js';
export { NoContent, dataEnvelope, listEnvelope } from './route-docs.js';
export { validatedInHandler } from './zod-compilers.js';
