import { afterEach, expect } from 'vitest';
import { contractViolations } from '../helpers/contract-violations.js';

// Every in-process answer is checked against the OpenAPI document (test/helpers/api-contract.ts);
// a test whose requests got an undocumented status or body fails here, naming them.
afterEach(() => {
  const found = contractViolations.splice(0);
  expect(
    found,
    "answers that break the OpenAPI document (declare the route's response schema or config.errors)",
  ).toEqual([]);
});
