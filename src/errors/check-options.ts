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
