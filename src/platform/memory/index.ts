/** The public face of src/platform/memory: what the rest of src/ may import from it. */
export { runsOnGlibc } from './glibc.js';
export { releaseFreedMemory, type ReleasedMemory } from './release-freed-memory.js';
