// Type tests (checked by `npm run typecheck`): each error class's `isInstance` narrows `unknown` to that class, so
// its fields can be read without a cast, across duplicated copies of the package where `instanceof` fails.
import {
  ContextOverflowError,
  IndexSaveError,
  InvalidArgumentError,
  LLMError,
  type LLMErrorCode,
  MissingTemplateVariableError,
  NoObjectGeneratedError,
  OptimizerZeroSentencesError,
  RagsynthError,
  type RagsynthErrorCode,
  ReaderSkipError,
  RerankParseError,
} from "ragsynth";
import { BatchInputError, MissingPeerDependencyError, RedisUnavailableError } from "ragsynth/batch";
import { describe, expectTypeOf, it } from "vitest";

declare const caught: unknown;

describe("isInstance narrows", () => {
  it("RagsynthError to the base class with its code union", () => {
    if (RagsynthError.isInstance(caught)) {
      expectTypeOf(caught).toEqualTypeOf<RagsynthError>();
      expectTypeOf(caught.code).toEqualTypeOf<RagsynthErrorCode>();
    }
    if (RagsynthError.isInstance(caught, "context_overflow"))
      expectTypeOf(caught).toEqualTypeOf<RagsynthError>();
    // @ts-expect-error not an error code
    RagsynthError.isInstance(caught, "context-overflow");
  });

  it("LLMError to LLMError with its fields and LLM codes only", () => {
    if (LLMError.isInstance(caught)) {
      expectTypeOf(caught).toEqualTypeOf<LLMError>();
      expectTypeOf(caught.code).toEqualTypeOf<LLMErrorCode>();
      expectTypeOf(caught.status).toEqualTypeOf<number | undefined>();
      expectTypeOf(caught.retryable).toEqualTypeOf<boolean>();
      expectTypeOf(caught.lastError).toEqualTypeOf<LLMError | undefined>();
    }
    if (LLMError.isInstance(caught, "llm_rate_limit"))
      expectTypeOf(caught.retryAfterMs).toEqualTypeOf<number | undefined>();
    // @ts-expect-error a RagsynthError code that an LLMError never carries
    LLMError.isInstance(caught, "context_overflow");
  });

  it("every other class to itself", () => {
    if (ContextOverflowError.isInstance(caught)) {
      expectTypeOf(caught).toEqualTypeOf<ContextOverflowError>();
      expectTypeOf(caught.overBy).toEqualTypeOf<number>();
    }
    if (InvalidArgumentError.isInstance(caught)) expectTypeOf(caught).toEqualTypeOf<InvalidArgumentError>();
    if (MissingTemplateVariableError.isInstance(caught))
      expectTypeOf(caught).toEqualTypeOf<MissingTemplateVariableError>();
    if (NoObjectGeneratedError.isInstance(caught)) {
      expectTypeOf(caught).toEqualTypeOf<NoObjectGeneratedError>();
      expectTypeOf(caught).toHaveProperty("text");
    }
    if (IndexSaveError.isInstance(caught)) expectTypeOf(caught).toEqualTypeOf<IndexSaveError>();
    if (ReaderSkipError.isInstance(caught)) expectTypeOf(caught).toEqualTypeOf<ReaderSkipError>();
    if (OptimizerZeroSentencesError.isInstance(caught))
      expectTypeOf(caught).toEqualTypeOf<OptimizerZeroSentencesError>();
    if (RerankParseError.isInstance(caught)) expectTypeOf(caught).toEqualTypeOf<RerankParseError>();
    if (BatchInputError.isInstance(caught)) expectTypeOf(caught).toEqualTypeOf<BatchInputError>();
    if (MissingPeerDependencyError.isInstance(caught))
      expectTypeOf(caught).toEqualTypeOf<MissingPeerDependencyError>();
    if (RedisUnavailableError.isInstance(caught)) expectTypeOf(caught).toEqualTypeOf<RedisUnavailableError>();
  });

  it("subclasses stay RagsynthErrors, and a narrowed value is no longer unknown", () => {
    expectTypeOf<LLMError>().toExtend<RagsynthError>();
    expectTypeOf<ContextOverflowError>().toExtend<RagsynthError>();
    if (!LLMError.isInstance(caught)) expectTypeOf(caught).toEqualTypeOf<unknown>();
  });
});
