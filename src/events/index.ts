export { EVENT_DATA_SCHEMAS, EVENT_TYPES, EventTypeSchema, type EventData, type EventInput, type EventPayload, type EventType } from './catalogue.js';
export { DISPATCH_DEDUPE_KEY, dispatchEventsKind } from './dispatch-kind.js';
export { emitEvent } from './emit.js';
