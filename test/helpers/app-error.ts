import { expect } from 'vitest';
import { AppError } from '../../src/platform/errors/index.js';

/** The AppError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function appErrorFrom(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
