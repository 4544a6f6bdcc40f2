/**
 * Answers that broke the OpenAPI document, filled by the check test/helpers/api-contract.ts installs
 * on in-process apps and emptied after each test by test/setup/api-contract.ts. A module of its own,
 * so the setup every test file runs loads neither Ajv nor the daemon's modules.
 */
export interface ContractViolation {
  readonly route: string;
  readonly status: number;
  readonly problem: string;
}

export const contractViolations: ContractViolation[] = [];
