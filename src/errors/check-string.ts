import { checkArrayOf } from "./check-options.js";
import { InvalidArgumentError } from "./invalid-argument-error.js";

/** Throws an {@link InvalidArgumentError} unless `value` is a string: ``Expected `text` to be a string, got `42` (number).`` */
export function checkString(parameter: string, value: unknown): asserts value is string {
  if (typeof value !== "string")
    throw new InvalidArgumentError({ parameter, value, expected: "be a string" });
}

/** {@link checkString} for an array and each of its entries (`texts`, then `texts[index]`). */
export function checkStrings(parameter: string, value: unknown): asserts value is readonly string[] {
  checkArrayOf(parameter, value, "be an array of strings", (entry, name) => checkString(name, entry));
}
