export {
  EVENT_DATA_SCHEMAS,
  EVENT_TYPES,
  EventTypeSchema,
  type EventData,
  type EventInput,
  type EventPayload,
  type EventType,
} from './catalogue.js';
export { emitEvent } from './emit.js';
export { fanOutEvent, type OutboxEvent } from './fan-out.js';
export { deliverWebhookKind, dispatchEventsKind, type DeliverWebhookPayload } from './job-kinds.js';
