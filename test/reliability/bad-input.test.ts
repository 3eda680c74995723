import {
  getResponseSynthesizer,
  type NodeWithScore,
  PromptTemplate,
  RESPONSE_MODES,
  type ResponseMode,
  TextNode,
} from "ragsynth";
import { DEFAULT_TEXT_QA_PROMPT_TMPL } from "ragsynth/extend";
import { describe, expect, it } from "vitest";
import {
  CONTEXT_MODES,
  collectUnhandledRejections,
  expectTyped,
  LLM_MODES,
  mockLLM,
  rejectionOf,
  textNode,
  thrownBy,
} from "./helpers.js";

// The bad-input catalogue, part 1: queries, nodes, modes and templates. Budgets are in bad-input-budgets.test.ts,
// model answers in bad-model-answers.test.ts; docs/reliability.md lists the whole catalogue.

collectUnhandledRejections();

const node = textNode;
const mock = mockLLM;

describe("bad-input catalogue: queries and nodes", () => {
  it("empty query: documented safe behaviour, the query slot is filled with an empty string and the template is intact", async () => {
    const llm = mock();
    const response = await getResponseSynthesizer({ llm }).synthesize({
      query: "",
      nodes: [node("the context")],
    });
    expect(response.response).toBe("answer");
    expect(llm.prompts).toEqual([
      DEFAULT_TEXT_QA_PROMPT_TMPL.replace("{context_str}", "the context").replace("{query_str}", ""),
    ]);
  });

  it("a query that is not a string: invalid_argument saying a string was expected and what arrived", async () => {
    const synthesizer = getResponseSynthesizer({ llm: mock() });
    for (const query of [undefined, 42, { text: "q" }]) {
      const error = await rejectionOf(
        synthesizer.synthesize({ query: query as unknown as string, nodes: [node("c")] }),
      );
      expectTyped(error, "invalid_argument", /Expected `query` to be a string, got /);
    }
  });

  it("nodes that are not an array: invalid_argument naming `nodes`", async () => {
    const error = await rejectionOf(
      getResponseSynthesizer({ llm: mock() }).synthesize({
        query: "q",
        nodes: "text" as unknown as NodeWithScore[],
      }),
    );
    expectTyped(
      error,
      "invalid_argument",
      /Expected `nodes` to be an array of NodeWithScore, got `"text"` \(string\)/,
    );
  });

  it("a TextNode with non-string text is rejected at construction, with the fix", () => {
    const error = thrownBy(() => new TextNode({ text: 42 as unknown as string }));
    expectTyped(
      error,
      "invalid_argument",
      /Expected `text` to be a string, got `42` \(number\)/,
      /Convert the node's content to text/,
    );
  });

  it("a node whose content is not a string is rejected before any call", async () => {
    const llm = mock();
    const odd = {
      node: Object.assign(Object.create(TextNode.prototype), {
        id: "x",
        text: 42,
        metadata: {},
        excludedLlmMetadataKeys: [],
      }),
    };
    const error = await rejectionOf(
      getResponseSynthesizer({ llm }).synthesize({ query: "q", nodes: [odd as NodeWithScore] }),
    );
    expectTyped(error, "invalid_argument", /to be a string, got `42` \(number\)/);
    expect(llm.calls).toHaveLength(0);
  });

  // BUG (reported): plain objects, null or `{ text }` in `nodes` crash with a TypeError from inside the
  // synthesizer (`node.getContent is not a function`) instead of a typed error naming `nodes[i]`.
  it.each([
    ["a plain { node: { id, text } } object (e.g. parsed JSON)", { node: { id: "a", text: "hello" } }],
    ["null", null],
    ["a bare { text } without node", { text: "hello" }],
  ])("a malformed node — %s — is an invalid_argument naming nodes[0]", async (_name, bad) => {
    const error = await rejectionOf(
      getResponseSynthesizer({ llm: mock() }).synthesize({
        query: "q",
        nodes: [bad as unknown as NodeWithScore],
      }),
    );
    expectTyped(error, "invalid_argument", /nodes\[0\]/);
  });

  it.each(LLM_MODES)(
    "%s: empty and whitespace-only nodes are dropped from the context (documented, as LlamaIndex)",
    async (mode) => {
      const llm = mock();
      const response = await getResponseSynthesizer({ llm, responseMode: mode }).synthesize({
        query: "q",
        nodes: [node(""), node("  \n\t "), node("real text"), node("\n")],
      });
      const everything = llm.prompts.join("\n");
      // The blank nodes add nothing: no stray separators, and the one real text is sent once (generation sends none).
      expect(everything).not.toMatch(/\n\n\n|\n\s+\n/);
      expect(everything.split("real text").length - 1).toBe(mode === "generation" ? 0 : 1);
      expect(response.sourceNodes).toHaveLength(4);
    },
  );

  it.each(CONTEXT_MODES)(
    "%s: only blank nodes — no call, the empty response, sources kept (documented)",
    async (mode) => {
      const llm = mock();
      const response = await getResponseSynthesizer({ llm, responseMode: mode }).synthesize({
        query: "q",
        nodes: [node(""), node("   ")],
      });
      // Differs from LlamaIndex (one call with an empty context): no text is treated as no nodes, so no call
      // is wasted on a context-free answer; the sources are still returned.
      expect(llm.calls).toHaveLength(0);
      expect(response.response).toBe("Empty Response");
      expect(response.sourceNodes).toHaveLength(2);
    },
  );
});

describe("bad-input catalogue: modes and templates", () => {
  it("an unknown mode is an unknown_mode error listing every valid mode", () => {
    const error = thrownBy(() =>
      getResponseSynthesizer({ llm: mock(), responseMode: "summarize" as ResponseMode }),
    );
    expectTyped(error, "unknown_mode", /Unknown response mode "summarize"/);
    for (const mode of RESPONSE_MODES) expect((error as Error).message).toContain(`"${mode}"`);
  });

  it("a concurrency of 0 is an invalid_argument", () => {
    expectTyped(
      thrownBy(() => getResponseSynthesizer({ llm: mock(), concurrency: 0 })),
      "invalid_argument",
      /Expected `concurrency` to be a positive integer/,
    );
  });

  // BUG (reported): a custom template without `{context_str}` silently drops the retrieved context in every mode:
  // the model is asked the question with no context at all. Expected: a typed error before any call that names the
  // missing variable (e.g. missing_template_variable / invalid_argument: "template has no {context_str} slot").
  it.each([
    "refine",
    "compact",
    "tree_summarize",
    "simple_summarize",
    "accumulate",
    "compact_accumulate",
  ] as const)(
    "%s with a template missing {context_str} is a typed error naming the slot, not silently context-free",
    async (mode) => {
      const llm = mock();
      const template = new PromptTemplate({ template: "Answer briefly: {query_str}" });
      // Caught when the synthesizer is built: before any node is read or any call is made.
      const error = thrownBy(() =>
        getResponseSynthesizer({
          llm,
          responseMode: mode,
          textQaTemplate: template,
          summaryTemplate: template,
        }),
      );
      expectTyped(error, "invalid_argument", /to have the variable \{context_str\}/, /silently left out/);
      expect(llm.calls).toHaveLength(0);
    },
  );

  // BUG (reported, same family): a refine template without {context_msg} silently drops every chunk after the first.
  it("refine with a refine template missing {context_msg} is a typed error, not silently dropping chunks 2..n", async () => {
    const llm = mock();
    const refineTemplate = new PromptTemplate({ template: "Improve {existing_answer} for {query_str}" });
    const error = thrownBy(() => getResponseSynthesizer({ llm, responseMode: "refine", refineTemplate }));
    expectTyped(error, "invalid_argument", /\{context_msg\}/);
    expect(llm.calls).toHaveLength(0);
  });

  it("a refine template using {context_str} instead of {context_msg} is caught up front, before any call", () => {
    const llm = mock();
    const refineTemplate = new PromptTemplate({
      template: "Improve {existing_answer} with {context_str} for {query_str}",
    });
    const error = thrownBy(() => getResponseSynthesizer({ llm, responseMode: "refine", refineTemplate }));
    expectTyped(error, "invalid_argument", /\{context_msg\}/);
    expect(llm.calls).toHaveLength(0);
  });

  it("updatePrompts checks the new template's slots too", () => {
    const synthesizer = getResponseSynthesizer({ llm: mock() });
    const error = thrownBy(() =>
      synthesizer.updatePrompts({ text_qa_template: new PromptTemplate({ template: "Q: {query_str}" }) }),
    );
    expectTyped(error, "invalid_argument", /\{context_str\}/);
  });

  it.each(["compact", "tree_summarize", "accumulate"] as const)(
    "%s: a template with literal JSON braces works; only {name} slots are filled",
    async (mode) => {
      const llm = mock();
      const template = new PromptTemplate({
        template:
          'Reply as {"answer": "...", "sources": [{"id": 1}]} or {  }.\nContext: {context_str}\nQuestion: {query_str}',
      });
      await getResponseSynthesizer({
        llm,
        responseMode: mode,
        textQaTemplate: template,
        summaryTemplate: template,
      }).synthesize({
        query: "why {x}?",
        nodes: [node('data {"k": "$&"}')],
      });
      expect(llm.prompts).toEqual([
        'Reply as {"answer": "...", "sources": [{"id": 1}]} or {  }.\nContext: data {"k": "$&"}\nQuestion: why {x}?',
      ]);
    },
  );
});
