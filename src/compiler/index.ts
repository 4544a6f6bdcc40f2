/**
 * The node compiler: graph rows in, node files (docs/contract.md#node-files) out. compileNode is the pure core (any
 * NodeSink); compileToDirectory is the shell a publisher calls; validateNode is the consumer-side
 * check a publisher runs before it publishes anything.
 */
export { compileNode, PRIORITY_FEED_SIZE } from './compile-node.js';
export {
  compileToDirectory,
  createDirectorySink,
  replaceDirectory,
  type CompileToDirectoryOptions,
} from './directory.js';
export { readPreviousNode } from './previous.js';
export {
  createMemorySink,
  TrackedFile,
  type MemorySink,
  type NodeSink,
  type SinkFile,
  type WrittenFile,
} from './sink.js';
export { createMemoryGraphReader, type MemoryGraph } from './memory-reader.js';
export { compileFixture, loadFixture, FixtureSiteSchema, DEFAULT_FIXTURE_BUILD_TIME, type Fixture } from './fixture.js';
export {
  checkGolden,
  updateGolden,
  listFixtures,
  formatGoldenReport,
  type GoldenReport,
  type GoldenDifference,
} from './golden.js';
export { validateNode, type ValidationReport, type ValidationIssue } from './validate/validate-node.js';
export { formatFileCount, formatValidationReport } from './validate/format-report.js';
export { parseLlmsTxt, type ParsedLlmsTxt } from './validate/llms-parse.js';
export { buildTimeAt, nodeVersionUlid, nodeVersionLabel, contentDigest } from './node-version.js';
export { AI_SITEMAP_NS } from './sitemap.js';
export { LLMS_FULL_BUDGET, LLMS_TXT_BUDGET } from './llms.js';
export type { CompileOptions, CompileResult, CompileCounts, PreviousNode } from './types.js';
export {
  COMPILE_PASSES,
  COMPILE_PROGRESS_EVERY,
  type CompilePass,
  type CompileProgress,
  type CompileProgressListener,
} from './progress.js';
export { compileWebsite } from './website.js';
export type { RejectedKind, RejectedRecord } from './rejections.js';
export { ParallelWrittenNodeCheck } from './validate/written-node-thread.js';
export { KnownLinesCheck } from './validate/known-lines.js';
