import { refuse } from './kind-guard.js';

// A unit test (`*.test.ts`): pure functions and in-memory work, reading the checkout's committed files at most.
refuse('process', '*.process.test.ts');
refuse('thread', '*.app.test.ts');
refuse('temporary folder', '*.app.test.ts');
refuse('listening socket', '*.app.test.ts');
