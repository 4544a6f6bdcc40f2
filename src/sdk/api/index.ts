/**
 * @nodectl/cli/api: the typed client of the management API. Types come from the zod schemas the
 * routes validate with (z.input for requests, z.output for answers); failures are ApiError;
 * a failure that is safe to repeat is retried (options retries, retryBaseMs, maxRetryDelayMs).
 */
export * from './client.js';
export { ApiError, isApiError, type ClientErrorCode } from './errors.js';
export type { ApiCredential, ApiRetry, TransportOptions } from './transport.js';
export { DEFAULT_API_RETRY, type RetryPolicy } from './retry.js';
export { parseServerSentEvents, ServerSentEventParser, type ServerSentEvent } from './event-stream.js';
export type { ErrorCode } from '../../platform/errors/index.js';
export { collectPages, createApiClient } from './client.js';
export type {
  ApiClient,
  ConnectorWithToken,
  CreateConnectorBody,
  CreateWebhookBody,
  Job,
  JobDetail,
  Page,
  SearchHit,
  SearchQuery,
  UpdateWebhookBody,
  UpdateWebsiteBody,
  WebhookDeliveriesQuery,
  WebhookDelivery,
  WebhookSubscription,
  Website,
} from './client.js';
