// Error identity: every error class recognises its own instances (and its subclasses') and no other class's,
// so `LLMError.isInstance(e)` can be trusted (it used to be true for every ragsynth error).
import { InvalidArgumentError, LLMError, RagsynthError } from "ragsynth";
import { retryWithBackoff } from "ragsynth/extend";
import { describe, expect, it } from "vitest";
import { type AnyErrorClass, errorClasses } from "./error-classes.test.util.js";

const examples: [AnyErrorClass, RagsynthError][] = errorClasses.map(({ errorClass, fields }) => [
  errorClass,
  new errorClass(fields),
]);

describe("isInstance", () => {
  it.each(examples.map(([errorClass]) => [errorClass.name, errorClass] as const))(
    "%s.isInstance is true for its own instances only, across every other error class",
    (_name, errorClass) => {
      for (const [otherClass, error] of examples) {
        expect(errorClass.isInstance(error), `${errorClass.name}.isInstance(new ${otherClass.name}())`).toBe(
          otherClass === errorClass,
        );
      }
    },
  );

  it("RagsynthError.isInstance is true for every ragsynth error, and checks the code when one is given", () => {
    for (const [, error] of examples) expect(RagsynthError.isInstance(error)).toBe(true);
    const overflow = examples[0]?.[1];
    expect(RagsynthError.isInstance(overflow, "context_overflow")).toBe(true);
    expect(RagsynthError.isInstance(overflow, "invalid_argument")).toBe(false);
    expect(LLMError.isInstance(examples[2]?.[1], "llm_server_error")).toBe(true);
    expect(LLMError.isInstance(examples[2]?.[1], "llm_auth")).toBe(false);
  });

  it("is false for plain errors, look-alikes without the marker, and non-objects", () => {
    for (const [errorClass] of examples) {
      expect(errorClass.isInstance(new Error("x"))).toBe(false);
      expect(errorClass.isInstance({ name: errorClass.name, code: "invalid_argument" })).toBe(false);
      expect(errorClass.isInstance(undefined)).toBe(false);
      expect(errorClass.isInstance("LLMError")).toBe(false);
    }
    expect(RagsynthError.isInstance(null)).toBe(false);
  });

  it("works across duplicated copies of the package: the marker is a Symbol.for key", () => {
    const copy = Object.create(null) as Record<symbol, boolean>;
    copy[Symbol.for("ragsynth.error")] = true;
    copy[Symbol.for("ragsynth.error.LLMError")] = true;
    expect(LLMError.isInstance(copy)).toBe(true);
    expect(InvalidArgumentError.isInstance(copy)).toBe(false);
  });
});

describe("retryWithBackoff", () => {
  it("lets a non-LLM ragsynth error out as itself, after one attempt (it used to be a TypeError)", async () => {
    const thrown = new InvalidArgumentError({
      parameter: "query",
      value: "",
      expected: "be a non-empty string",
    });
    let attempts = 0;
    const caught = await retryWithBackoff({
      run: async () => {
        attempts++;
        throw thrown;
      },
      _internal: { sleep: async () => {} },
    }).catch((error: unknown) => error);
    expect(caught).toBe(thrown);
    expect(attempts).toBe(1);
  });

  it("still retries an LLMError that is retryable and reports the attempts", async () => {
    let attempts = 0;
    const caught = await retryWithBackoff({
      run: async () => {
        attempts++;
        throw new LLMError({ code: "llm_server_error", message: "boom", status: 500, retryable: true });
      },
      maxRetries: 2,
      _internal: { sleep: async () => {}, random: () => 0.5 },
    }).catch((error: unknown) => error);
    expect(attempts).toBe(3);
    expect(LLMError.isInstance(caught, "retries_exhausted")).toBe(true);
    expect((caught as LLMError).attempts).toBe(3);
  });
});
