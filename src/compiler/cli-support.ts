/** What the compile, golden and validate commands load lazily (one import per command run). */
export { compileToDirectory } from './directory.js';
export { compileWebsite } from './website.js';
export { loadFixture } from './fixture.js';
export { readPreviousNode } from './previous.js';
export { checkGolden, updateGolden, formatGoldenReport } from './golden.js';
export { validateNode } from './validate/validate-node.js';
export { formatValidationReport } from './validate/format-report.js';
