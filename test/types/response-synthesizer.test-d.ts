// Type tests (checked by `npm run typecheck`, which CI runs; also `npx vitest --typecheck.only`): the answer's type
// follows `outputSchema`, through the synthesizer, its stream and a query engine built from the same options.
import {
  getResponseSynthesizer,
  type ResponseSynthesizer,
  RetrieverQueryEngine,
  type SynthesisResponse,
} from "ragsynth";
import { MockLLM } from "ragsynth/testing";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

const llm = new MockLLM({ response: "{}" });
const schema = z.object({ answer: z.string(), confidence: z.number() });
type Answer = z.infer<typeof schema>;

describe("getResponseSynthesizer with outputSchema", () => {
  it("types the answer by the schema", () => {
    const synthesizer = getResponseSynthesizer({ llm, outputSchema: schema });
    expectTypeOf(synthesizer).toEqualTypeOf<ResponseSynthesizer<Answer>>();
    expectTypeOf(synthesizer.synthesize).returns.resolves.toEqualTypeOf<SynthesisResponse<Answer>>();
    expectTypeOf<SynthesisResponse<Answer>["object"]>().toEqualTypeOf<Answer | undefined>();
    expectTypeOf(synthesizer.stream).returns.toHaveProperty("response").resolves.toHaveProperty("object");
    expectTypeOf<Awaited<ReturnType<typeof synthesizer.stream>["response"]>>().toEqualTypeOf<
      SynthesisResponse<Answer>
    >();
  });

  it("without a schema the object is unknown, not any", () => {
    const synthesizer = getResponseSynthesizer({ llm, responseMode: "tree_summarize" });
    expectTypeOf(synthesizer).toEqualTypeOf<ResponseSynthesizer<unknown>>();
    expectTypeOf<SynthesisResponse["object"]>().toEqualTypeOf<unknown>();
    expectTypeOf<SynthesisResponse["object"]>().not.toBeAny();
  });

  it("an array schema gives an array answer", () => {
    const synthesizer = getResponseSynthesizer({ llm, outputSchema: z.array(z.string()) });
    expectTypeOf(synthesizer).toEqualTypeOf<ResponseSynthesizer<string[]>>();
  });

  it("refuses a schema that is not a zod type and an unknown mode", () => {
    // @ts-expect-error a JSON Schema object is not a zod schema
    getResponseSynthesizer({ llm, outputSchema: { type: "object" } });
    // @ts-expect-error not one of the response modes
    getResponseSynthesizer({ llm, responseMode: "summarize" });
  });

  it("a query engine built with the schema answers with its type", () => {
    const engine = new RetrieverQueryEngine({
      retriever: { retrieve: async () => [] },
      llm,
      outputSchema: schema,
    });
    expectTypeOf(engine).toEqualTypeOf<RetrieverQueryEngine<Answer>>();
    expectTypeOf(engine.responseSynthesizer).toEqualTypeOf<ResponseSynthesizer<Answer>>();
  });
});
