import { checkObject } from "./check-options.js";
import { checkString, checkStrings } from "./check-string.js";
import { InvalidArgumentError } from "./invalid-argument-error.js";

/** What one required field of an error's fields must hold: a type, or one of a list of strings. */
export type ErrorFieldKind = "string" | "number" | "string[]" | readonly string[];

/**
 * The fields an error class is constructed with, checked before they are read (with the package's own checks,
 * `check-options.ts`): a JavaScript caller who passes none, or a required field of the wrong type, gets an
 * `InvalidArgumentError` naming the class and the field (``Expected `LLMError fields.message` to be a string``), not
 * a TypeError from destructuring `undefined` or a message that reads "undefined". Every error class but
 * `RagsynthError` and `InvalidArgumentError` (which these checks throw) uses it; those two check their own.
 * @throws InvalidArgumentError when `fields` is not an object or a required field is not of its kind
 */
export function checkErrorFields<T>(
  fields: T,
  className: string,
  required: Readonly<Record<string, ErrorFieldKind>>,
): T {
  const names = Object.keys(required).join(", ");
  checkObject(
    `${className} fields`,
    fields,
    `be an object with ${names}`,
    `Construct it as new ${className}({ ${names}, … }).`,
  );
  for (const [name, kind] of Object.entries(required)) {
    const parameter = `${className} fields.${name}`;
    const value = (fields as Record<string, unknown>)[name];
    if (kind === "string") checkString(parameter, value);
    else if (kind === "string[]") checkStrings(parameter, value);
    else if (
      kind === "number" ? typeof value !== "number" || Number.isNaN(value) : !kind.includes(value as string)
    )
      throw new InvalidArgumentError({
        parameter,
        value,
        expected:
          kind === "number" ? "be a number" : `be one of ${kind.map((item) => `"${item}"`).join(", ")}`,
      });
  }
  return fields;
}
