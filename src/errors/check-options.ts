import { InvalidArgumentError } from "./invalid-argument-error.js";

/**
 * A constructor's or function's options for a plain-JavaScript caller: `value` when it is an object (not an array),
 * `{}` when it was left out (`undefined`), so the checks of its fields say what is missing; anything else (`null`, a
 * string, an array) is an {@link InvalidArgumentError} naming `parameter` and what the object holds (`example`),
 * never a TypeError from destructuring it.
 * @param example the object's shape in the message, such as `{ retriever, responseSynthesizer? }`
 */
export function optionsOf<Options extends object>(
  parameter: string,
  value: Options | undefined,
  example: string,
): Options {
  if (value === undefined) return {} as Options;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError({ parameter, value, expected: `be an object: ${example}` });
  }
  return value;
}

/**
 * Throws an {@link InvalidArgumentError} unless `value` is an object (not `null`): the check of an argument that must
 * be one (a node, a location, a model's metadata), for plain JavaScript callers.
 * @param expected completes "Expected `parameter` to …" (``be a NodeLocation ({ file?, lines? … })``)
 */
export function checkObject(
  parameter: string,
  value: unknown,
  expected: string,
  hint?: string,
): asserts value is object {
  if (typeof value !== "object" || value === null) {
    throw new InvalidArgumentError({ parameter, value, expected, ...(hint ? { hint } : {}) });
  }
}

/**
 * Throws an {@link InvalidArgumentError} unless `value` is a function: a callback a caller must pass (`run`,
 * `engineFor`).
 */
export function checkFunction(parameter: string, value: unknown, expected: string, hint?: string): void {
  if (typeof value !== "function") {
    throw new InvalidArgumentError({ parameter, value, expected, ...(hint ? { hint } : {}) });
  }
}

/**
 * Throws an {@link InvalidArgumentError} unless `value` is an object with a `method` function: an object a caller
 * must pass, recognized by what it does (a store by `get`, a tokenizer by `count`), not by its class.
 */
export function checkMethod(
  parameter: string,
  value: unknown,
  method: string,
  expected: string,
  hint?: string,
): void {
  if (typeof (value as Record<string, unknown> | null | undefined)?.[method] !== "function") {
    throw new InvalidArgumentError({ parameter, value, expected, ...(hint ? { hint } : {}) });
  }
}

/**
 * Throws an {@link InvalidArgumentError} unless `value` is an array, then checks each entry with `checkEntry` under
 * its own name (`documents[3]`): the one shape of the package's list checks.
 */
export function checkArrayOf(
  parameter: string,
  value: unknown,
  expected: string,
  checkEntry: (entry: unknown, name: string) => void,
): void {
  if (!Array.isArray(value)) throw new InvalidArgumentError({ parameter, value, expected });
  for (const [index, entry] of value.entries()) checkEntry(entry, `${parameter}[${index}]`);
}
