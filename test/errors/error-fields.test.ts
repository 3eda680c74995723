// Error classes built by JavaScript callers (a custom model adapter throwing an LLMError, a reader's own error):
// without their fields, or with one of the wrong type, each says which class and field, as a typed error, instead of
// a TypeError from destructuring `undefined` or a message reading "undefined".
import { InvalidArgumentError, LLMError, RagsynthError } from "ragsynth";
import { describe, expect, it } from "vitest";
import { errorClasses, loose } from "./error-classes.test.util.js";

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error("expected the constructor to throw");
}

describe("error classes built without their fields", () => {
  it.each(
    errorClasses.map(
      ({ errorClass, fields, required }) => [errorClass.name, errorClass, fields, required] as const,
    ),
  )(
    "%s: no fields, null, a field missing or of another type: InvalidArgumentError naming the class and field",
    (name, errorClass, fields, field) => {
      // The fields given build it.
      expect(RagsynthError.isInstance(new errorClass(fields))).toBe(true);
      for (const bad of [undefined, null, "fields", 42]) {
        const error = thrown(() => new errorClass(bad));
        expect(InvalidArgumentError.isInstance(error), `${name}(${String(bad)})`).toBe(true);
        expect((error as InvalidArgumentError).parameter).toBe(`${name} fields`);
        expect((error as Error).message).toContain(field);
      }
      for (const value of [undefined, Symbol("x"), { toString: () => "object" }]) {
        const error = thrown(() => new errorClass({ ...fields, [field]: value }));
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        expect((error as InvalidArgumentError).parameter).toBe(`${name} fields.${field}`);
      }
    },
  );

  it("LLMError takes only the codes an LLMError can carry", () => {
    const error = thrown(
      () => new (loose(LLMError))({ code: "context_overflow", message: "not a model error" }),
    );
    expect((error as InvalidArgumentError).parameter).toBe("LLMError fields.code");
    expect((error as Error).message).toContain('one of "missing_api_key"');
  });

  it("RagsynthError itself: an error of its own class with code invalid_argument", () => {
    const Base = loose(RagsynthError);
    for (const bad of [undefined, null, { code: "invalid_argument" }, { message: "no code" }]) {
      const error = thrown(() => new Base(bad));
      expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      expect((error as Error).message).toContain("Expected RagsynthError fields to be an object with code");
    }
    expect(new Base({ code: "invalid_argument", message: "fine" }).message).toBe("fine");
  });
});
