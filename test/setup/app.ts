import { refuse } from './kind-guard.js';

// An app test (`*.app.test.ts`): everything in this process (the app through inject(), SQLite files in
// temporary folders, loopback servers, worker threads), but no other process.
refuse('process', '*.process.test.ts');
