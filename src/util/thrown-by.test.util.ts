import { expect } from "vitest";

// The one pair of helpers for tests that look at an error's fields (test/reliability/helpers.ts re-exports them).

/**
 * The error a synchronous call throws.
 * @throws the test's failure when the call returns instead of throwing
 */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return expect.fail("expected a throw");
}

/**
 * The error a promise rejects with.
 * @throws the test's failure when the promise resolves instead
 */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail("expected the promise to reject");
}
