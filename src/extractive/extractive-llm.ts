import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkChatMessages, checkPromptText } from "../llm/check-model.js";
import { messagesToPrompt } from "../llm/messages-to-prompt.js";
import type { ChatMessage, LLM, LLMCallOptions, LLMMetadata, LLMResult } from "../llm/types.js";
import { joinSentences } from "../splitter/join-sentences.js";
import { isTokenizerName, resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer, TokenizerLike } from "../tokenizer/tokenizer.js";
import { textWindowSlices } from "../util/text-windows.js";
import { wordSegments } from "../util/word-segmenter.js";
import { type ExtractedAnswer, extractAnswer, type RememberedQuote } from "./extractive-answer.js";
import {
  type ExtractiveRequest,
  readExtractiveChatRequest,
  readExtractiveRequest,
} from "./extractive-request.js";
import { renderStructuredAnswer } from "./extractive-structured.js";

/** Options of {@link ExtractiveLLM}. */
export interface ExtractiveLLMOptions {
  /** Ranks passages against the query by embedding similarity. @default BM25 over the context's passages */
  embedModel?: Embedder | undefined;
  /** The most passages (prose sentences, code blocks, list items, table rows) in an answer; the answer is still cut to `maxTokens`. @default 5 */
  maxSentences?: number | undefined;
  /** Passages must score strictly above this to be used when there is a query. @default 0 */
  minScore?: number | undefined;
  /** Share of the query's terms one answer sentence must contain for `query_satisfied`. @default 0.5 */
  satisfiedThreshold?: number | undefined;
  /**
   * Splits a prose paragraph into sentences; pieces not found verbatim in it are skipped.
   * @default ICU sentences (`splitSentences`), joined back where a break has no whitespace after it (`commits?author=`)
   */
  splitSentences?: ((text: string) => string[]) | undefined;
  /** Counts tokens for `maxTokens` and usage. @default "cl100k_base" */
  tokenizer?: TokenizerLike | undefined;
  /** Reported like a real model's, so budgets and packing behave as they would. @default 4096 */
  contextWindow?: number | undefined;
  /** Used when a call passes no `maxTokens`. @default 256 */
  maxOutputTokens?: number | undefined;
}

/**
 * The offline default answerer. It is **extractive, not generative**: it quotes the passages of the
 * context most relevant to the query — prose sentences, and whole code blocks, list items and table rows,
 * where developer docs keep option names, defaults and examples — ranked by BM25 with each passage's
 * heading (or by an embedModel), keeps the best `maxSentences` of one retrieved file (the top-ranked one, or the one
 * holding the passage that covers most of the query's terms when the query concerns it as much; a context without
 * metadata lines is one file) and returns them in document order. Every
 * quote is a verbatim slice of the context (passages next to each other become one slice); it never
 * writes new text. Quotes are joined by a space, or a blank line around code, lists and tables.
 *
 * It reads `templateVariables` (`query_str`, `context_str`, `context_msg`, `existing_answer`) and
 * `promptType`; a refine call merges the existing answer with the new context's best passages,
 * without duplicates. Without template variables the prompt itself is the context and its last
 * `Query:` line the query. With no passage sharing a word with the query the answer is empty. A `responseFormat` named
 * `StructuredRefineResponse` gives `{"query_satisfied", "answer"}` JSON; other schemas are filled best
 * effort. Answers are cut to `maxTokens` at word boundaries (JSON answers stay valid). Deterministic.
 * It cannot see images (`metadata.imageInput` is `"captions"`): it answers from their captions and alt
 * text only and never describes an image it was not told about.
 *
 * @example
 * const llm = new ExtractiveLLM();
 * const { text } = await llm.complete(prompt, { templateVariables: { query_str, context_str }, promptType: "text_qa" });
 */
export class ExtractiveLLM implements LLM {
  readonly metadata: LLMMetadata;
  readonly #settings: {
    embedModel: Embedder | undefined;
    maxSentences: number;
    minScore: number;
    satisfiedThreshold: number;
    splitSentences: ((text: string) => string[]) | undefined;
  };
  readonly #tokenizer: Tokenizer;
  /** The quotes of the latest answers, so a refine call keeps them with the scores that chose them. */
  readonly #memory = new Map<string, RememberedQuote[]>();

  constructor(options: ExtractiveLLMOptions = {}) {
    const {
      embedModel,
      maxSentences = 5,
      minScore = 0,
      satisfiedThreshold = 0.5,
      splitSentences,
      tokenizer = "cl100k_base",
      contextWindow = 4096,
      maxOutputTokens = 256,
    } = optionsOf("options", options, "{ embedModel?, maxSentences?, minScore?, satisfiedThreshold?, … }");
    checkInteger("maxSentences", maxSentences, 1);
    checkInteger("contextWindow", contextWindow, 1);
    checkInteger("maxOutputTokens", maxOutputTokens, 0);
    if (!Number.isFinite(minScore)) {
      throw new InvalidArgumentError({
        parameter: "minScore",
        value: minScore,
        expected: "be a finite number",
      });
    }
    if (!(satisfiedThreshold >= 0 && satisfiedThreshold <= 1)) {
      throw new InvalidArgumentError({
        parameter: "satisfiedThreshold",
        value: satisfiedThreshold,
        expected: "be a number between 0 and 1",
      });
    }
    this.#tokenizer = resolveTokenizer(tokenizer);
    this.#settings = { embedModel, maxSentences, minScore, satisfiedThreshold, splitSentences };
    this.metadata = {
      model: "extractive",
      kind: "extractive",
      isChatModel: false,
      contextWindow,
      maxOutputTokens,
      structuredOutput: "json_schema",
      // It cannot see pixels: images reach it as their captions and alt text (text blocks), which cost their text.
      imageInput: "captions",
      imageTokens: { kind: "fixed", tokensPerImage: 0 },
      ...(isTokenizerName(tokenizer) ? { tokenizer } : {}),
    };
  }

  async complete(prompt: string, options: LLMCallOptions = {}): Promise<LLMResult> {
    checkPromptText(prompt);
    return this.#finish(prompt, await this.#answer(readExtractiveRequest(prompt, options), options), options);
  }

  async *streamComplete(
    prompt: string,
    options: LLMCallOptions = {},
  ): AsyncGenerator<string, void, undefined> {
    checkPromptText(prompt);
    const text = await this.#answer(readExtractiveRequest(prompt, options), options);
    yield* this.#stream(prompt, text, options);
  }

  async chat(messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
    checkChatMessages(messages);
    const text = await this.#answer(readExtractiveChatRequest(messages, options), options);
    return this.#finish(messagesToPrompt(messages), text, options);
  }

  async *streamChat(
    messages: ChatMessage[],
    options: LLMCallOptions = {},
  ): AsyncGenerator<string, void, undefined> {
    checkChatMessages(messages);
    const text = await this.#answer(readExtractiveChatRequest(messages, options), options);
    yield* this.#stream(messagesToPrompt(messages), text, options);
  }

  async #answer(request: ExtractiveRequest, options: LLMCallOptions): Promise<string> {
    const { signal, responseFormat } = options;
    signal?.throwIfAborted();
    const maxTokens = options.maxTokens ?? this.metadata.maxOutputTokens ?? 256;
    checkInteger("maxTokens", maxTokens, 0);
    const recall = (answer: string) => this.#memory.get(answer);
    const extracted: ExtractedAnswer = await extractAnswer(request, { ...this.#settings, signal, recall });
    signal?.throwIfAborted();
    const chunks = wordChunks(joinQuotes(extracted.sentences, extracted.multiline));
    const render = (answer: string) =>
      responseFormat
        ? renderStructuredAnswer(responseFormat, answer, extracted.sentences, extracted.querySatisfied)
        : answer;
    if (responseFormat) return render(this.#truncate(chunks, render, maxTokens));
    // A plain answer cut inside a quoted code block gets the block's closing fence (counted in maxTokens), so what
    // follows it in a Markdown view is not shown as code. An answer not cut is its quotes exactly.
    const whole = chunks.join("").trimEnd().length;
    const closeIfCut = (text: string) => (text.length === whole ? text : closeOpenFence(text));
    const cut = this.#truncate(chunks, closeIfCut, maxTokens);
    const answer = closeIfCut(cut);
    this.#remember(answer, cut, extracted);
    return answer;
  }

  // The quotes that made it whole into the (possibly cut) answer, under its text (`answer`: `cut` with any closing
  // fence added); the oldest of MEMORY entries goes first.
  #remember(answer: string, cut: string, extracted: ExtractedAnswer): void {
    const quotes: RememberedQuote[] = [];
    let position = 0;
    for (const [index, text] of extracted.sentences.entries()) {
      let at = cut.indexOf(text, position);
      let quoted = text;
      if (at === -1) {
        // The answer was cut inside this quote: remember the part it kept.
        const rest = cut.slice(position).trim();
        at = cut.indexOf(rest, position);
        if (rest === "" || !text.startsWith(rest)) break;
        quoted = rest;
      }
      position = at + quoted.length;
      quotes.push({
        text: quoted,
        multiline: extracted.multiline[index] ?? false,
        score: extracted.scores[index] ?? 0,
      });
    }
    if (quotes.length === 0 || cut.slice(position).trim() !== "") return;
    this.#memory.delete(answer);
    this.#memory.set(answer, quotes);
    if (this.#memory.size > MEMORY) this.#memory.delete(this.#memory.keys().next().value as string);
  }

  // The longest prefix of whole chunks whose rendering fits in maxTokens (binary search: O(log n) counts).
  #truncate(chunks: string[], render: (answer: string) => string, maxTokens: number): string {
    const prefix = (count: number) => chunks.slice(0, count).join("").trimEnd();
    const fits = (count: number) => this.#tokenizer.count(render(prefix(count))) <= maxTokens;
    if (fits(chunks.length)) return prefix(chunks.length);
    let low = 0;
    let high = chunks.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (fits(middle)) low = middle;
      else high = middle - 1;
    }
    return prefix(low);
  }

  #finish(prompt: string, text: string, options: LLMCallOptions): LLMResult {
    const usage = {
      promptTokens: this.#tokenizer.count(prompt),
      completionTokens: this.#tokenizer.count(text),
    };
    options.onUsage?.(usage);
    return { text, usage };
  }

  async *#stream(
    prompt: string,
    text: string,
    options: LLMCallOptions,
  ): AsyncGenerator<string, void, undefined> {
    for (const chunk of wordChunks(text)) {
      options.signal?.throwIfAborted();
      yield chunk;
    }
    options.signal?.throwIfAborted();
    this.#finish(prompt, text, options);
  }
}

/** How many recent answers an ExtractiveLLM remembers the quotes of. */
const MEMORY = 64;

/**
 * Joins verbatim quotes: prose with one space (none between Chinese or Japanese sentences), and a code block,
 * list item or table row on its own paragraph, so every quote stays intact in the answer.
 */
function joinQuotes(quotes: readonly string[], multiline: readonly boolean[]): string {
  let text = "";
  quotes.forEach((quote, index) => {
    if (index === 0) text = quote;
    else if (multiline[index] || multiline[index - 1]) text = `${text}\n\n${quote}`;
    else text = joinSentences([text, quote]);
  });
  return text;
}

/**
 * `text` with the code block it leaves open closed: a fence line as long as the one that opened it (CommonMark), or,
 * when the cut came right after the opening fence line, without that line. `text` as it is when no block is open.
 */
export function closeOpenFence(text: string): string {
  let open: { marker: string; at: number } | undefined;
  for (let start = 0; start !== -1; ) {
    const end = text.indexOf("\n", start);
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text.slice(start, end === -1 ? undefined : end));
    if (fence) {
      const marker = fence[1] as string;
      const rest = fence[2] as string;
      if (open === undefined) {
        // A backtick fence's info string holds no backtick (else the line is inline code, not a fence).
        if (marker[0] === "~" || !rest.includes("`")) open = { marker, at: start };
      } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && rest.trim() === "") {
        open = undefined;
      }
    }
    start = end === -1 ? -1 : end + 1;
  }
  if (open === undefined) return text;
  // Cut right after the opening fence line: nothing of the block was kept, so neither is its fence.
  if (!text.slice(open.at).trim().includes("\n")) return text.slice(0, open.at).trimEnd();
  return `${text}\n${open.marker}`;
}

/**
 * Splits text into word-ish chunks (a word and the spaces or punctuation after it); they join back exactly.
 * Segmented in bounded windows cut after whitespace, so the cost stays linear in the answer's length.
 */
function wordChunks(text: string): string[] {
  const chunks: string[] = [];
  let current = "";
  let hasWord = false;
  for (const window of textWindowSlices(text)) {
    for (const { segment, isWordLike } of wordSegments(window)) {
      if (isWordLike && hasWord) {
        chunks.push(current);
        current = "";
      }
      current += segment;
      hasWord ||= Boolean(isWordLike);
    }
  }
  if (current !== "") chunks.push(current);
  return chunks;
}
