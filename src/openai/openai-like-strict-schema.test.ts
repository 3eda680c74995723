import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toStrictJsonSchema } from "../llm/strict-json-schema.js";
import { predictObject } from "../prompt/predict.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { OpenAILike } from "./openai-like.js";

const startServer = fakeServersClosedAfterEach();
const prompt = new PromptTemplate({ template: "Answer {query_str}" });

async function structured<T>(schema: z.ZodType<T>, answer: string) {
  const server = await startServer({ handler: () => answer });
  const llm = new OpenAILike({
    model: "gpt-4o-mini",
    baseURL: server.url,
    apiKey: "sk-local",
    structuredOutput: "json_schema",
  });
  const result = await predictObject({ llm, prompt, variables: { query_str: "q" }, schema });
  const body = server.requests.at(-1)?.body as { response_format: { json_schema: Record<string, unknown> } };
  return { object: result.object, jsonSchema: body.response_format.json_schema };
}

describe("OpenAI strict json_schema", () => {
  it("lists every property in required, optional ones nullable, and turns null back into absent", async () => {
    const schema = z.object({ answer: z.string(), note: z.string().optional() });
    const { object, jsonSchema } = await structured(schema, '{"answer": "42", "note": null}');
    expect(jsonSchema.strict).toBe(true);
    const sent = jsonSchema.schema as { required: string[]; properties: Record<string, unknown> };
    expect(sent.required).toEqual(["answer", "note"]);
    expect(sent.properties.note).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    expect(sent).toMatchObject({ additionalProperties: false });
    expect(object).toEqual({ answer: "42" });
  });

  it("converts nested objects and arrays of objects", () => {
    const strict = toStrictJsonSchema(
      z.toJSONSchema(
        z.object({ items: z.array(z.object({ a: z.number(), b: z.boolean().optional() })) }),
      ) as Record<string, unknown>,
    );
    const item = (strict as { properties: { items: { items: Record<string, unknown> } } }).properties.items
      .items;
    expect(item.required).toEqual(["a", "b"]);
    expect(item.additionalProperties).toBe(false);
  });

  it("sends strict: false when the schema cannot be made strict (a record)", async () => {
    const schema = z.object({ counts: z.record(z.string(), z.number()) });
    const { object, jsonSchema } = await structured(schema, '{"counts": {"a": 1}}');
    expect(jsonSchema.strict).toBe(false);
    expect(object).toEqual({ counts: { a: 1 } });
  });
});
