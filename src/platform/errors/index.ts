/** The public face of src/platform/errors: what the rest of src/ may import from it. */
export { AppError, fieldProblemsFromZod, isAppError } from './app-error.js';
export { ERROR_CODES } from './registry.js';
export type { ErrorCode } from './registry.js';
export { belowFloorError, isStorageFault, storageFaultOf, storageUnavailableError } from './storage-fault.js';
export type { StorageFaultReason } from './storage-fault.js';
