/** The public face of src/control/webhooks: what the rest of src/ may import from it. */
export { webhookDeliverJob } from './deliver-job.js';
export { webhooksDispatchJob } from './dispatch-job.js';
export { webhooksPruneJob } from './prune-job.js';
export { webhookRoutes } from './routes.js';
export { UpdateSubscriptionSchema } from './schemas.js';
export type {
  CreateSubscriptionSchema,
  DeliveryListQuerySchema,
  DeliverySchema,
  PingResultSchema,
  SubscriptionSchema,
  SubscriptionWithSecretSchema,
} from './schemas.js';
