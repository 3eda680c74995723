import fc from "fast-check";
import {
  DEFAULT_REFINE_PROMPT_SEL,
  DEFAULT_TEXT_QA_PROMPT_SEL,
  DEFAULT_TREE_SUMMARIZE_PROMPT_SEL,
  getResponseSynthesizer,
  type LLMCallOptions,
  PromptHelper,
  PromptTemplate,
  RagsynthError,
  type RagsynthEvent,
  RESPONSE_MODES,
  TextNode,
} from "ragsynth";
import {
  contextVariableOf,
  countPromptTokens,
  joinChunks,
  type RenderedPrompt,
  resolveTokenizer,
} from "ragsynth/extend";
import { MockLLM, type MockLLMInput } from "ragsynth/testing";
import { describe, expect, it } from "vitest";
import { collectUnhandledRejections, expectTiling } from "./helpers.js";

collectUnhandledRejections();

/** 100 runs here (the other suites run 200 of their own); `RAGSYNTH_PROPERTY_RUNS=10000` for the large run. */
const NUM_RUNS = Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 100);
/** Generous per-test time: about 40 ms a run, never under 30 s. */
const TIMEOUT = Math.max(30_000, NUM_RUNS * 40);
const cl100k = resolveTokenizer("cl100k_base");
const LLM_MODES = RESPONSE_MODES.filter(
  (mode) => mode !== "no_text" && mode !== "context_only" && mode !== "generation",
);

/** Words that stress the tokenizer and the formatter: CJK, emoji, template syntax, `$` patterns, separators. */
const piece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("alpha", "beta", "gamma", "delta", "the", "of", "and", "tokens", "budget"),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom("日本語のテキスト", "长城", "émigré", "naïve", "😀👍🏽", "Ünïcödé", "ﬁ"),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "{context_str}",
      "{query_str}",
      "$&",
      "$'",
      "$$",
      "---------------------",
      "<|im_start|>system",
      "assistant:",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "supercalifragilisticexpialidocious",
      "x".repeat(40),
      "0123456789".repeat(5),
      "https://example.com/a/b?c=d",
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
);
const separator = fc.constantFrom(" ", " ", " ", "\n", "\n\n", "  ", "\t", ". ");
const text = (maxWords: number) =>
  fc
    .array(fc.tuple(piece, separator), { maxLength: maxWords })
    .map((parts) => parts.map(([word, space]) => word + space).join(""));

/**
 * A window so tight that a chunk may hold fewer tokens than one character needs (a CJK character or an emoji
 * is 2–4 tokens) fails with a typed `context_overflow` naming the character and what to raise. Counted apart
 * so the outcome mix shows how often the generators hit it.
 */
function isTinyBudgetError(error: unknown): boolean {
  return (
    RagsynthError.isInstance(error, "context_overflow") &&
    /a chunk cannot split a character/.test((error as Error).message)
  );
}

/** What a model received, as the server would count it. */
function receivedPrompts(llm: MockLLM): RenderedPrompt[] {
  return llm.calls.map((call) =>
    call.messages
      ? { kind: "chat" as const, messages: call.messages }
      : { kind: "completion" as const, text: call.prompt ?? "" },
  );
}

/** A model whose answers are long (echo-ish: repeated prompt words), cut to `maxTokens` like a server does. */
function verboseModel(options: { contextWindow: number; isChatModel: boolean; seed: number }) {
  return new MockLLM({
    contextWindow: options.contextWindow,
    isChatModel: options.isChatModel,
    truncateToMaxTokens: true,
    response: ({ prompt, messages, callIndex }: MockLLMInput) => {
      const source = prompt ?? messages?.map((message) => message.content).join(" ") ?? "";
      const length = (options.seed + callIndex * 7919) % 3 === 0 ? 5 : 400;
      return source.slice(0, length * 4) || "ok";
    },
  });
}

describe("properties at scale", () => {
  it(`no prompt is over budget in any mode, chat or completion, with or without a system prompt (${NUM_RUNS} runs)`, {
    timeout: TIMEOUT,
  }, async () => {
    const outcomes = { ok: 0, overflow: 0, tiny: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          mode: fc.constantFrom(...LLM_MODES),
          isChatModel: fc.boolean(),
          contextWindow: fc.integer({ min: 160, max: 1500 }),
          numOutput: fc.integer({ min: 1, max: 120 }),
          texts: fc.array(text(60), { maxLength: 10 }),
          query: text(8),
          systemPrompt: fc.option(text(12), { nil: undefined }),
          seed: fc.nat(),
        }),
        async ({ mode, isChatModel, contextWindow, numOutput, texts, query, systemPrompt, seed }) => {
          const llm = verboseModel({ contextWindow, isChatModel, seed });
          const promptHelper = new PromptHelper({ contextWindow, numOutput });
          const synthesizer = getResponseSynthesizer({
            responseMode: mode,
            llm,
            promptHelper,
            systemPrompt,
            concurrency: 3,
          });
          const nodes = texts.map((value, index) => ({
            node: new TextNode({ id: `p${index}`, text: value }),
            score: 1,
          }));
          try {
            await synthesizer.synthesize({ query, nodes });
            outcomes.ok += 1;
          } catch (error) {
            // The only acceptable failures: a typed overflow, raised before any call went over (or the tiny-budget bug).
            if (isTinyBudgetError(error)) outcomes.tiny += 1;
            else if (RagsynthError.isInstance(error, "context_overflow")) outcomes.overflow += 1;
            // Summaries of numOutput tokens may not shrink in a tight window: the typed, documented stop.
            else if (mode === "tree_summarize" && RagsynthError.isInstance(error, "tree_not_shrinking"))
              outcomes.overflow += 1;
            else throw error;
          }
          for (const rendered of receivedPrompts(llm)) {
            const tokens = countPromptTokens(
              rendered,
              cl100k,
              systemPrompt === undefined ? {} : { systemPrompt },
            ).total;
            if (tokens + numOutput > contextWindow) {
              throw new Error(
                `${mode}: a prompt of ${tokens} tokens + numOutput ${numOutput} > contextWindow ${contextWindow}`,
              );
            }
          }
          for (const call of llm.calls) expect((call.options as LLMCallOptions).maxTokens).toBe(numOutput);
        },
      ),
      { numRuns: NUM_RUNS, seed: 424242 },
    );
    console.info(`[reliability] budget property outcomes: ${JSON.stringify(outcomes)}`);
    // The property is not vacuous: most runs synthesized.
    expect(outcomes.ok).toBeGreaterThan(outcomes.overflow + outcomes.tiny);
  });

  it(`repack loses no text, duplicates none, and every piece fits the prompt (${NUM_RUNS} runs)`, {
    timeout: TIMEOUT,
  }, () => {
    const templates = [
      DEFAULT_TEXT_QA_PROMPT_SEL,
      DEFAULT_TREE_SUMMARIZE_PROMPT_SEL,
      DEFAULT_REFINE_PROMPT_SEL.partialFormat({ existing_answer: "an answer so far" }),
      new PromptTemplate({ template: "{context_str}" }),
    ];
    fc.assert(
      fc.property(
        fc.record({
          template: fc.constantFrom(...templates),
          isChatModel: fc.boolean(),
          contextWindow: fc.integer({ min: 140, max: 2000 }),
          numOutput: fc.integer({ min: 0, max: 100 }),
          chunks: fc.array(text(80), { maxLength: 12 }),
          query: text(6),
        }),
        ({ template, isChatModel, contextWindow, numOutput, chunks, query }) => {
          const helper = new PromptHelper({ contextWindow, numOutput });
          const llm = { metadata: { isChatModel } };
          const options = { llm, variables: { query_str: query } };
          let pieces: string[];
          try {
            pieces = helper.repack(template, chunks, options);
          } catch (error) {
            if (RagsynthError.isInstance(error, "context_overflow") || isTinyBudgetError(error)) return;
            throw error;
          }
          const whole = joinChunks(chunks);
          expectTiling(whole, pieces);
          const chunkSize = helper.getAvailableChunkSize(template, options);
          for (const piece of pieces) {
            expect(cl100k.count(piece)).toBeLessThanOrEqual(chunkSize);
            const variable = contextVariableOf(template, options) as string;
            const total = helper.countPrompt(template, {
              ...options,
              variables: { query_str: query, [variable]: piece },
            }).total;
            expect(total + numOutput).toBeLessThanOrEqual(contextWindow);
          }
          // (The TSDoc's count bound, ceil(tokens / chunkSize) + 1, is not asserted here: see the marked test below.)
        },
      ),
      { numRuns: NUM_RUNS, seed: 515151 },
    );
  });

  it(`tree_summarize always terminates with echo-ish or long answers: an answer or tree_not_shrinking, never a loop (${NUM_RUNS} runs)`, {
    timeout: TIMEOUT,
  }, async () => {
    const outcomes = { ok: 0, notShrinking: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          contextWindow: fc.integer({ min: 220, max: 1200 }),
          numOutput: fc.integer({ min: 8, max: 200 }),
          texts: fc.array(text(50), { minLength: 1, maxLength: 16 }),
          answer: fc.constantFrom("echo-prompt", "echo-context", "long", "short"),
          truncate: fc.boolean(),
          isChatModel: fc.boolean(),
        }),
        async ({ contextWindow, numOutput, texts, answer, truncate, isChatModel }) => {
          const llm = new MockLLM({
            contextWindow,
            isChatModel,
            truncateToMaxTokens: truncate,
            response: ({ prompt, messages, options, callIndex }) => {
              if (callIndex > 2000) throw new Error("tree_summarize is looping: over 2000 calls");
              const whole = prompt ?? messages?.map((message) => message.content).join("\n") ?? "";
              if (answer === "echo-prompt") return whole;
              if (answer === "echo-context") return options.templateVariables?.context_str ?? whole;
              if (answer === "long") return "lorem ipsum dolor sit amet ".repeat(200);
              return "short";
            },
          });
          const promptHelper = new PromptHelper({ contextWindow, numOutput });
          const nodes = texts.map((value, index) => ({
            node: new TextNode({ id: `t${index}`, text: value }),
            score: 1,
          }));
          const levels: number[] = [];
          const onEvent = (event: RagsynthEvent) => {
            if (event.type === "pack") levels.push(event.chunkTokens.length);
          };
          let outcome: "ok" | "not-shrinking" | "failed-before-packing";
          try {
            await getResponseSynthesizer({
              responseMode: "tree_summarize",
              llm,
              promptHelper,
              onEvent,
            }).synthesize({ query: "sum up", nodes });
            outcome = "ok";
          } catch (error) {
            if (RagsynthError.isInstance(error, "tree_not_shrinking")) {
              expect((error as Error).message).toMatch(
                /does the model ignore its output limit|echo its prompt/,
              );
              outcome = "not-shrinking";
            } else if (RagsynthError.isInstance(error, "context_overflow") || isTinyBudgetError(error)) {
              outcome = "failed-before-packing";
            } else {
              throw error;
            }
          }
          // Termination is structural: every level packed into fewer chunks than the one before, except the level
          // that stopped the run, and the calls are exactly the chunks summarized (plus the root call on success).
          const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);
          const stable = outcome === "not-shrinking" ? levels.slice(0, -1) : levels;
          for (let level = 1; level < stable.length; level++)
            expect(stable[level]).toBeLessThan(stable[level - 1] as number);
          if (outcome === "ok" && texts.every((text) => text.trim() === "")) {
            // No text at all is treated as no nodes: the empty response, no packing, no call.
            expect(levels).toEqual([]);
            expect(llm.calls).toHaveLength(0);
            outcomes.ok += 1;
          } else if (outcome === "ok") {
            expect(levels.at(-1)).toBeLessThanOrEqual(1);
            expect(llm.calls.length).toBe(sum(levels.slice(0, -1)) + 1);
            outcomes.ok += 1;
          } else if (outcome === "not-shrinking") {
            expect(levels.at(-1)).toBeGreaterThanOrEqual(levels.at(-2) as number);
            expect(llm.calls.length).toBe(sum(levels.slice(0, -1)));
            outcomes.notShrinking += 1;
          } else {
            expect(llm.calls.length).toBe(sum(levels));
          }
        },
      ),
      { numRuns: NUM_RUNS, seed: 626262 },
    );
    console.info(`[reliability] tree termination outcomes: ${JSON.stringify(outcomes)}`);
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.notShrinking).toBeGreaterThan(0);
  });

  // Was a bug: the error was an invalid_argument about the packer's internal `maxTokens`.
  it("a window too tight for one CJK character is a context_overflow naming contextWindow", async () => {
    const llm = new MockLLM({ response: "a" });
    const numOutput = 1;
    let contextWindow = 20;
    for (; contextWindow < 400; contextWindow++) {
      const helper = new PromptHelper({ contextWindow, numOutput });
      try {
        if (
          helper.getAvailableChunkSize(DEFAULT_TEXT_QA_PROMPT_SEL, {
            llm,
            variables: { query_str: "q" },
            padding: 0,
          }) === 1
        )
          break;
      } catch {
        // still too small
      }
    }
    const promptHelper = new PromptHelper({ contextWindow, numOutput });
    let caught: unknown;
    try {
      await getResponseSynthesizer({ llm, promptHelper, responseMode: "compact" }).synthesize({
        query: "q",
        nodes: [{ node: new TextNode({ text: "語" }) }],
      });
    } catch (error) {
      caught = error;
    }
    // One token of context fits (no padding: each piece is checked inside its prompt), but not the 2-token
    // character: the synthesizer refuses before any call.
    expect(RagsynthError.isInstance(caught, "context_overflow")).toBe(true);
    expect((caught as Error).message).toMatch(/contextWindow/);
    expect(llm.calls).toHaveLength(0);
    // repack itself, asked for 1-token chunks, names the character and what to raise.
    let packed: unknown;
    try {
      promptHelper.repack(DEFAULT_TEXT_QA_PROMPT_SEL, ["語"], {
        llm,
        variables: { query_str: "q" },
        padding: 0,
      });
    } catch (error) {
      packed = error;
    }
    expect(RagsynthError.isInstance(packed, "context_overflow")).toBe(true);
    expect((packed as Error).message).toMatch(
      /"語" \(2 tokens on its own\) with its prompt.*Only 1 token of context fit beside the prompt/,
    );
    expect((packed as Error).message).toMatch(/Raise contextWindow, lower numOutput/);
  });

  // Was a doc bug: repack's TSDoc promised at most ceil(tokens / chunkSize) + 1 pieces, which multi-token
  // characters (astral, CJK) at a small chunk size make impossible. The documented bound now also allows a
  // character-by-character greedy packing's count, since a piece never splits a character.
  it("repack's piece count stays within its documented bound even with multi-token characters", () => {
    const template = DEFAULT_REFINE_PROMPT_SEL.partialFormat({ existing_answer: "an answer so far" });
    const helper = new PromptHelper({ contextWindow: 140, numOutput: 53 });
    const options = { llm: { metadata: { isChatModel: false } }, variables: { query_str: "alpha " } };
    const chunks = ["Ŧ ", "𐀀٠ alpha\nalpha ㆀ𐀀  日本語のテキスト "];
    const pieces = helper.repack(template, chunks, options);
    const chunkSize = helper.getAvailableChunkSize(template, options);
    const text = joinChunks(chunks);
    expectTiling(text, pieces);
    let greedy = 0;
    let current = "";
    for (const character of text) {
      if (current !== "" && cl100k.count(current + character) > chunkSize) {
        greedy += 1;
        current = "";
      }
      current += character;
    }
    if (current.trim() !== "") greedy += 1;
    const tokenBound = Math.ceil(cl100k.count(text) / chunkSize) + 1;
    expect(pieces.length).toBeGreaterThan(tokenBound); // the case that broke the old promise
    expect(pieces.length).toBeLessThanOrEqual(Math.max(tokenBound, greedy));
    for (const piece of pieces) expect(cl100k.count(piece)).toBeLessThanOrEqual(chunkSize);
  });
});
