import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import { ChatPromptTemplate, PromptTemplate } from "../prompt/prompt-template.js";
import { countPromptTokens, type RenderTarget, renderPrompt } from "../prompt/render-prompt.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { BudgetOptions } from "./budget-options.js";
import { DEFAULT_PADDING, PromptHelper } from "./prompt-helper.js";
import { createTextPacker, joinChunks } from "./text-packer.js";

const numRuns = Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 200);
const tokenizer = resolveTokenizer("cl100k_base");
const nonWhitespace = (text: string) => text.replace(/\s+/gu, "");
const pretokenizer = tokenizer.pretokenizer as RegExp;
const piecePattern = new RegExp(pretokenizer.source, `${pretokenizer.flags.replace("g", "")}g`);

const wordUnit = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("the", "quantum", "Lily", "entrepreneurship", "co-operation", "don't"),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom("e.g.,", "1234567", "naïve", "(aside)", '{"json": 1}', "$&", "$$5"),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom("教育是人类社会发展的基石", "，", "。", "😀", "👩‍👩‍👧", "🧬🧬🧬", "ab\u0301c"),
  },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 6 }) },
);
const gap = fc.constantFrom(" ", " ", " ", "", "\n", "\n\n", "  ", "\t", " \u3000", "   \n ");
const prose = (maxLength: number) =>
  fc
    .array(fc.tuple(wordUnit, gap), { maxLength })
    .map((pairs) => pairs.map(([word, space]) => word + space).join(""));
// Chunk text may also contain things that look like variables (templates get no stray braces), or a letter
// run over 1,024 characters: one BPE piece, which the index never tokenizes whole again.
const longRun = fc
  .tuple(fc.constantFrom("ab", "教育", "xY"), fc.integer({ min: 520, max: 600 }), prose(8))
  .map(([letters, times, after]) => `${letters.repeat(times)} ${after}`);
const chunkText = fc.oneof(
  { weight: 8, arbitrary: prose(60) },
  { weight: 2, arbitrary: prose(6).map((text) => `${text} {context_str} {query_str} }{`) },
  { weight: 1, arbitrary: longRun },
);

interface Scenario {
  prompt: BasePromptTemplate;
  options: BudgetOptions;
  variables: TemplateVariables;
  numOutput: number;
  chunkSize: number;
}

const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    before: prose(6),
    between: prose(4),
    after: prose(6),
    query: prose(80),
    topic: fc.option(prose(5), { nil: undefined }),
    chat: fc.boolean(),
    chatModel: fc.boolean(),
    systemPrompt: fc.option(prose(8), { nil: undefined }),
    numOutput: fc.integer({ min: 0, max: 300 }),
    chunkSize: fc.integer({ min: 16, max: 400 }),
  })
  .map((drawn) => {
    const topic = drawn.topic === undefined ? "" : "About {topic}. ";
    const user = `${drawn.before}{context_str}${drawn.between}{query_str}${drawn.after}`;
    let prompt: BasePromptTemplate = drawn.chat
      ? new ChatPromptTemplate({
          messages: [
            { role: "system", content: `${topic}Answer well.` },
            { role: "user", content: user },
          ],
        })
      : new PromptTemplate({ template: topic + user });
    if (drawn.topic !== undefined) prompt = prompt.partialFormat({ topic: drawn.topic });
    const variables = { query_str: drawn.query };
    const llm: RenderTarget = { metadata: { isChatModel: drawn.chatModel } };
    const options: BudgetOptions = {
      variables,
      llm,
      ...(drawn.systemPrompt === undefined ? {} : { systemPrompt: drawn.systemPrompt }),
    };
    return { prompt, options, variables, numOutput: drawn.numOutput, chunkSize: drawn.chunkSize };
  });

/** A helper whose window leaves exactly `chunkSize` tokens per chunk for this prompt. */
function helperFor({ prompt, options, numOutput, chunkSize }: Scenario): PromptHelper {
  const fixed = new PromptHelper({ numOutput }).countPrompt(prompt, options).total;
  return new PromptHelper({ contextWindow: fixed + numOutput + DEFAULT_PADDING + chunkSize, numOutput });
}

/** Tokens of the prompt as sent, with `chunk` as its context, counted from the final text. */
function finalPromptTokens({ prompt, options, variables }: Scenario, chunk: string): number {
  const filled = { ...variables, context_str: chunk };
  const { llm, systemPrompt } = options;
  if (prompt.kind === "completion" && !llm?.metadata.isChatModel && !systemPrompt) {
    return tokenizer.count(prompt.format(filled));
  }
  const rendered = renderPrompt({ prompt, variables: filled, llm, systemPrompt });
  return rendered.kind === "completion"
    ? tokenizer.count(rendered.text)
    : countPromptTokens(rendered, tokenizer, { llm, systemPrompt }).total;
}

/** Tokens of `text` as the sum of its pre-tokenizer pieces' counts, each piece counted on its own. */
function piecewiseTokens(text: string): number {
  let tokens = 0;
  for (const piece of text.match(piecePattern) ?? []) tokens += tokenizer.count(piece);
  return tokens;
}

/** Chunks needed when each takes as many whole characters as fit (trailing whitespace dropped). */
function greedyCharacterPacking(text: string, chunkSize: number): number {
  const characters = Array.from(text);
  let count = 0;
  for (let start = 0; start < characters.length; ) {
    while (start < characters.length && /\s/u.test(characters[start] as string)) start += 1;
    if (start >= characters.length) break;
    let end = start + 1;
    let chunk = characters[start] as string;
    while (end < characters.length && tokenizer.count((chunk + characters[end]).trimEnd()) <= chunkSize) {
      chunk += characters[end];
      end += 1;
    }
    count += 1;
    start = end;
  }
  return count;
}

describe("repack properties (cl100k, random unicode)", () => {
  it("every chunk fits the window inside its final prompt, and its chunk size on its own", () => {
    fc.assert(
      fc.property(scenario, fc.array(chunkText, { maxLength: 8 }), (setup, chunks) => {
        const helper = helperFor(setup);
        expect(helper.getAvailableChunkSize(setup.prompt, setup.options)).toBe(setup.chunkSize);
        for (const chunk of helper.repack(setup.prompt, chunks, setup.options)) {
          expect(tokenizer.count(chunk)).toBeLessThanOrEqual(setup.chunkSize);
          expect(finalPromptTokens(setup, chunk) + helper.numOutput).toBeLessThanOrEqual(
            helper.contextWindow,
          );
        }
      }),
      { numRuns },
    );
  });

  it("reports each piece's exact token count: repackWithTokens gives repack's pieces and tokenizer.count of each", () => {
    fc.assert(
      fc.property(scenario, fc.array(chunkText, { maxLength: 8 }), (setup, chunks) => {
        const helper = helperFor(setup);
        const pieces = helper.repackWithTokens(setup.prompt, chunks, setup.options);
        expect(pieces.map((piece) => piece.text)).toEqual(helper.repack(setup.prompt, chunks, setup.options));
        for (const piece of pieces) expect(piece.tokens).toBe(tokenizer.count(piece.text));
      }),
      { numRuns },
    );
  });

  it("loses no text: the chunks' non-whitespace characters equal the input's, in order", () => {
    fc.assert(
      fc.property(scenario, fc.array(chunkText, { maxLength: 8 }), (setup, chunks) => {
        const packed = helperFor(setup).repack(setup.prompt, chunks, setup.options);
        expect(nonWhitespace(packed.join(""))).toBe(nonWhitespace(chunks.join("")));
        for (const chunk of packed) expect(chunk).toBe(chunk.trim());
      }),
      { numRuns },
    );
  });

  // ceil(tokens / chunk size) is a lower bound only while characters are small next to the chunk size: a
  // chunk cannot split a character, and one character can take 4 tokens. So the bound is the larger of it and
  // the count of a character-by-character greedy packing, which no order-keeping packing can beat.
  // The tokens are the joined text's pre-tokenizer pieces counted one by one, as a chunk that starts and ends
  // between pieces counts them. Counting the whole text at once can give a token less: a letter run over 512
  // characters is counted in cuts (upwards), and where its cuts fall depends on the 2,048-character windows the
  // whole text is read in (seed -803021033: 5,160 tokens whole, 5,161 piece by piece, at chunk size 20).
  it("makes at most one chunk more than the lower bound", () => {
    fc.assert(
      fc.property(scenario, fc.array(chunkText, { maxLength: 8 }), (setup, chunks) => {
        const packed = helperFor(setup).repack(setup.prompt, chunks, setup.options);
        const joined = joinChunks(chunks);
        const byTokens = Math.ceil(piecewiseTokens(joined) / setup.chunkSize);
        // The character packing is slow to compute, so only when the token bound alone is exceeded.
        const lowerBound =
          packed.length <= byTokens + 1
            ? byTokens
            : Math.max(byTokens, greedyCharacterPacking(joined, setup.chunkSize));
        expect(packed.length).toBeLessThanOrEqual(lowerBound + 1);
      }),
      { numRuns },
    );
  });

  it("packs just in time with changing budgets, within each budget and losing nothing", () => {
    fc.assert(
      fc.property(
        fc.array(chunkText, { maxLength: 6 }),
        fc.array(fc.integer({ min: 4, max: 300 }), { minLength: 1 }),
        (chunks, budgets) => {
          const packer = createTextPacker({ chunks });
          const taken: string[] = [];
          for (let round = 0; !packer.done; round++) {
            const budget = budgets[round % budgets.length] as number;
            const piece = packer.nextPiece(budget, { maxWaste: round % 3 === 0 ? 0 : Infinity });
            if (piece === undefined) throw new Error("a packer that is not done returned no piece");
            expect(piece.tokens).toBe(tokenizer.count(piece.text));
            expect(piece.tokens).toBeLessThanOrEqual(budget);
            taken.push(piece.text);
          }
          expect(nonWhitespace(taken.join(""))).toBe(nonWhitespace(chunks.join("")));
        },
      ),
      { numRuns },
    );
  });
});
