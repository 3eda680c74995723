import { InvalidArgumentError } from "./invalid-argument-error.js";

/**
 * Throws an {@link InvalidArgumentError} unless `value` is an integer of at least `minimum`:
 * ``Expected `batchSize` to be a positive integer, got `0` (number).``
 */
export function checkInteger(parameter: string, value: unknown, minimum: number): asserts value is number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected:
        minimum === 0
          ? "be an integer ≥ 0"
          : minimum === 1
            ? "be a positive integer"
            : `be an integer ≥ ${minimum}`,
    });
  }
}
