/** The public face of src/platform/ids: what the rest of src/ may import from it. */
export { newUlid } from './ulid.js';
