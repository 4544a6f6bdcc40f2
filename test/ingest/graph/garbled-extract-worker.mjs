// A stand-in for the extraction worker (src/ingest/graph/extract-worker.ts) whose answer to a row with
// the body "garbled" is not JSON; other requests get an empty answer. For
// test/ingest/graph/extraction-worker.app.test.ts: a pool must reject that request and go on.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', (request) => {
  const garbled = (request.rows ?? []).some((row) => row.body === 'garbled');
  // The text's UTF-8 bytes, as the real worker answers.
  const outcomes = new TextEncoder().encode(garbled ? '{"rows": [' : '[]');
  parentPort.postMessage({ id: request.id, outcomes }, [outcomes.buffer]);
});
