import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { checkString, checkStrings } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkTextNodes } from "../schema/check-text-nodes.js";
import { ImageNode } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";
import { joinedCount } from "../tokenizer/joined-count.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { countUpTo, type Tokenizer, type TokenizerLike } from "../tokenizer/tokenizer.js";
import { hasLongRun } from "./has-long-run.js";
import { longestMetadataStr } from "./metadata-room.js";
import { splitSentences } from "./sentences.js";
import { type SplitFunction, splitTextKeepSeparator } from "./split-functions.js";

/** Options of {@link SentenceSplitter}; the defaults are LlamaIndex's. */
export interface SentenceSplitterOptions {
  /** Most tokens in a chunk (metadata included, for the metadata-aware methods). @default 1024 */
  chunkSize?: number;
  /** Most tokens a chunk repeats from the end of the previous one; at most `chunkSize`. @default 200 */
  chunkOverlap?: number;
  /** The word separator, kept at the start of each later piece. @default " " */
  separator?: string;
  /** Splits text into paragraphs before anything else. @default "\n\n\n" */
  paragraphSeparator?: string;
  /** Splits sentences that are still too long into clauses. @default "[^,.;。？！]+[,.;。？！]?|[,.;。？！]" */
  secondaryChunkingRegex?: string;
  /** Splits a paragraph into sentences. @default splitSentences (Intl.Segmenter; LlamaIndex uses NLTK punkt) */
  chunkingTokenizerFn?: SplitFunction;
  /** Counts tokens. @default "cl100k_base" */
  tokenizer?: TokenizerLike;
  /** {@link SentenceSplitter.getNodesFromDocuments} leaves room for the metadata in each chunk. @default true */
  includeMetadata?: boolean;
}

interface Split {
  text: string;
  tokens: number;
}

/** Private to the splitter folder: the key of {@link SentenceSplitter}'s chunks with their counts. */
export const COUNTED_CHUNKS: unique symbol = Symbol("ragsynth.countedChunks");

/** LlamaIndex's default chunk size, in tokens. */
export const DEFAULT_CHUNK_SIZE = 1024;
/** LlamaIndex's default overlap between neighbouring chunks, in tokens. */
export const DEFAULT_CHUNK_OVERLAP = 200;

/**
 * Splits text into chunks of at most `chunkSize` tokens, keeping paragraphs, then sentences, then
 * clauses together where they fit, with up to `chunkOverlap` tokens repeated between chunks.
 * LlamaIndex's `SentenceSplitter`, with the same options and merge rules.
 *
 * Deliberate differences from LlamaIndex: sentences come from `Intl.Segmenter` instead of NLTK
 * punkt; text that cannot be split below `chunkSize` at any level is cut at character boundaries
 * instead of failing with "Single token exceeded chunk size"; a run of over 4096 letters (or
 * symbols) in a row is split into characters without counting it whole, since BPE counting is
 * quadratic in such runs; `""` gives `[]`, not `[""]`; no warning is printed when metadata leaves
 * fewer than 50 tokens.
 *
 * @example
 * const splitter = new SentenceSplitter({ chunkSize: 256, chunkOverlap: 20 });
 * const chunks = splitter.splitText(longText);
 */
export class SentenceSplitter {
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  readonly separator: string;
  readonly paragraphSeparator: string;
  readonly secondaryChunkingRegex: string;
  readonly includeMetadata: boolean;
  readonly tokenizer: Tokenizer;
  readonly #regex: RegExp;
  readonly #splitFunctions: readonly SplitFunction[];

  /** @throws InvalidArgumentError for a non-positive `chunkSize`, an overlap above it, or an invalid regex. */
  constructor(options: SentenceSplitterOptions = {}) {
    const {
      chunkSize = DEFAULT_CHUNK_SIZE,
      chunkOverlap = DEFAULT_CHUNK_OVERLAP,
      separator = " ",
      paragraphSeparator = "\n\n\n",
      secondaryChunkingRegex = "[^,.;。？！]+[,.;。？！]?|[,.;。？！]",
      chunkingTokenizerFn = splitSentences,
      tokenizer,
      includeMetadata = true,
    } = optionsOf("options", options, "{ chunkSize?, chunkOverlap?, separator?, paragraphSeparator?, … }");
    checkInteger("chunkSize", chunkSize, 1);
    if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap > chunkSize) {
      throw new InvalidArgumentError({
        parameter: "chunkOverlap",
        value: chunkOverlap,
        expected: `be an integer from 0 to \`chunkSize\` (${chunkSize})`,
        hint: "Lower chunkOverlap or raise chunkSize.",
      });
    }
    for (const [parameter, value] of [
      ["separator", separator],
      ["paragraphSeparator", paragraphSeparator],
    ] as const) {
      if (typeof value !== "string" || value === "") {
        throw new InvalidArgumentError({ parameter, value, expected: "be a non-empty string" });
      }
    }
    try {
      this.#regex = new RegExp(secondaryChunkingRegex, "g");
    } catch (cause) {
      throw new InvalidArgumentError({
        parameter: "secondaryChunkingRegex",
        value: secondaryChunkingRegex,
        expected: "be a valid JavaScript regular expression source",
        cause,
      });
    }
    this.chunkSize = chunkSize;
    this.chunkOverlap = chunkOverlap;
    this.separator = separator;
    this.paragraphSeparator = paragraphSeparator;
    this.secondaryChunkingRegex = secondaryChunkingRegex;
    this.includeMetadata = includeMetadata;
    this.tokenizer = resolveTokenizer(tokenizer);
    this.#splitFunctions = [
      (text) => splitTextKeepSeparator(text, paragraphSeparator),
      chunkingTokenizerFn,
      (text) => splitByRegex(text, this.#regex),
      (text) => splitTextKeepSeparator(text, separator),
    ];
  }

  /**
   * Splits text into chunks of at most `chunkSize` tokens. Chunks are trimmed; empty ones are dropped.
   * @throws InvalidArgumentError when `text` is not a string
   */
  splitText(text: string): string[] {
    checkString("text", text);
    return this.#splitText(text, this.chunkSize, 0);
  }

  /**
   * Splits text whose chunks will each carry `metadataStr`: every chunk gets `chunkSize −
   * tokens(metadataStr)` tokens. As in LlamaIndex, the `"\n\n"` that `getContent` puts between
   * metadata and text is not counted, so rendered content can exceed `chunkSize` by that token.
   * @throws InvalidArgumentError when the metadata alone takes `chunkSize` tokens or more, or `text` or
   *   `metadataStr` is not a string.
   */
  splitTextMetadataAware(text: string, metadataStr: string): string[] {
    checkString("text", text);
    checkString("metadataStr", metadataStr);
    const metadataTokens = this.tokenizer.count(metadataStr);
    const effective = this.chunkSize - metadataTokens;
    if (effective <= 0) {
      throw new InvalidArgumentError({
        parameter: "chunkSize",
        value: this.chunkSize,
        expected: `be larger than the metadata, which takes ${metadataTokens} tokens`,
        hint: "Raise chunkSize, shorten the metadata, or hide keys with excludedEmbedMetadataKeys and excludedLlmMetadataKeys.",
      });
    }
    return this.#splitText(text, effective, metadataTokens);
  }

  /** {@link splitText} for each text, flattened in order. */
  splitTexts(texts: readonly string[]): string[] {
    checkStrings("texts", texts);
    return texts.flatMap((text) => this.splitText(text));
  }

  /** {@link splitTextMetadataAware} for each text with its metadata string, flattened in order. */
  splitTextsMetadataAware(texts: readonly string[], metadataStrs: readonly string[]): string[] {
    checkStrings("texts", texts);
    checkStrings("metadataStrs", metadataStrs);
    if (texts.length !== metadataStrs.length) {
      throw new InvalidArgumentError({
        parameter: "metadataStrs",
        value: metadataStrs,
        expected: `have one entry per text (${texts.length}), but it has ${metadataStrs.length}`,
      });
    }
    return texts.flatMap((text, index) => this.splitTextMetadataAware(text, metadataStrs[index] as string));
  }

  /** Its settings as a cached index records them: `sentence:<chunkSize>/<chunkOverlap>:<tokenizer>` and its separators. */
  get id(): string {
    const separators = JSON.stringify([this.separator, this.paragraphSeparator, this.secondaryChunkingRegex]);
    return `sentence:${this.chunkSize}/${this.chunkOverlap}:${this.tokenizer.name}${this.includeMetadata ? "" : ":no-metadata"}:${separators}`;
  }

  /**
   * Splits documents into nodes. Each node copies its document's metadata and exclusion lists, adds
   * `start_char_idx`/`end_char_idx` (its position in the document's text, hidden from the LLM and
   * the embedder), and gets the id `<document id>#<chunk number>`. With `includeMetadata`, room
   * is left for the longer of the document's embed and LLM metadata strings.
   */
  getNodesFromDocuments(documents: readonly TextNode[]): TextNode[] {
    checkTextNodes(documents, "documents");
    const nodes: TextNode[] = [];
    for (const document of documents) {
      // An image is one chunk: its caption is not split and the node keeps its image.
      if (ImageNode.isInstance(document)) {
        nodes.push(document);
        continue;
      }
      const chunks = this.includeMetadata
        ? this.splitTextMetadataAware(document.text, longestMetadataStr(document))
        : this.splitText(document.text);
      let searchFrom = 0;
      chunks.forEach((chunk, index) => {
        const start = document.text.indexOf(chunk, searchFrom);
        const offsets = start < 0 ? {} : { start_char_idx: start, end_char_idx: start + chunk.length };
        if (start >= 0) searchFrom = start + 1;
        const hidden = start < 0 ? [] : ["start_char_idx", "end_char_idx"];
        nodes.push(
          new TextNode({
            id: `${document.id}#${index}`,
            text: chunk,
            metadata: { ...document.metadata, ...offsets },
            excludedEmbedMetadataKeys: [...document.excludedEmbedMetadataKeys, ...hidden],
            excludedLlmMetadataKeys: [...document.excludedLlmMetadataKeys, ...hidden],
          }),
        );
      });
    }
    return nodes;
  }

  /**
   * Private to the splitter folder: {@link splitText}'s chunks, each with its token count when it follows exactly
   * from the counts of the pieces it was merged from ({@link joinedCount}), so a caller that needs the count of each
   * chunk (the block splitter, checking a chunk with its headings fits) need not count it again.
   */
  [COUNTED_CHUNKS](text: string): Array<{ text: string; tokens: number | undefined }> {
    const counted: Array<{ text: string; tokens: number | undefined }> = [];
    for (const pieces of this.#chunks(text, this.chunkSize, 0)) {
      const chunk = joinPieces(pieces).trim();
      if (chunk !== "") counted.push({ text: chunk, tokens: joinedCount(this.tokenizer, pieces) });
    }
    return counted;
  }

  #splitText(text: string, size: number, metadataTokens: number): string[] {
    return this.#chunks(text, size, metadataTokens)
      .map((pieces) => joinPieces(pieces).trim())
      .filter((chunk) => chunk !== "");
  }

  // The pieces of each chunk, before joining and trimming.
  #chunks(text: string, size: number, metadataTokens: number): Split[][] {
    if (text === "") return [];
    const splits: Split[] = [];
    this.#split(text, size, metadataTokens, splits);
    return this.#merge(splits, size);
  }

  /** Paragraphs, then sentences, then clauses, then words, then characters, until every piece fits. */
  #split(text: string, size: number, metadataTokens: number, out: Split[]): void {
    // BPE cost grows with the square of a pre-token's length (100K letters in a row take ~20 s to count),
    // so text holding such a run is split without being counted; the run ends up split into characters.
    // Only a piece that fits needs its exact count; for a longer one, counting stops once it passes `size`.
    const tokens = hasLongRun(text) ? Number.POSITIVE_INFINITY : countUpTo(this.tokenizer, text, size);
    if (tokens <= size) {
      out.push({ text, tokens });
      return;
    }
    let pieces: string[] | undefined;
    for (const splitFunction of this.#splitFunctions) {
      const candidate = splitFunction(text).filter((piece) => piece !== "");
      if (candidate.length > 1) {
        pieces = candidate;
        break;
      }
    }
    pieces ??= Array.from(text);
    if (pieces.length === 1) {
      throw new InvalidArgumentError({
        parameter: "chunkSize",
        value: this.chunkSize,
        expected: `leave room for the single character ${JSON.stringify(text)}, which takes ${this.tokenizer.count(text)} tokens${
          metadataTokens > 0 ? ` on top of ${metadataTokens} tokens of metadata` : ""
        }`,
        hint: "Raise chunkSize.",
      });
    }
    for (const piece of pieces) this.#split(piece, size, metadataTokens, out);
  }

  /** Greedy packing with LlamaIndex's overlap rule: the next chunk starts with the closed one's tail. */
  #merge(splits: readonly Split[], size: number): Split[][] {
    const chunks: Split[][] = [];
    let current: Split[] = [];
    let currentTokens = 0;
    let isNew = true;
    let index = 0;
    while (index < splits.length) {
      const split = splits[index] as Split;
      if (currentTokens + split.tokens > size && !isNew) {
        chunks.push(current.slice());
        const overlap: Split[] = [];
        currentTokens = 0;
        for (let back = current.length - 1; back >= 0; back--) {
          const piece = current[back] as Split;
          if (currentTokens + piece.tokens > this.chunkOverlap) break;
          currentTokens += piece.tokens;
          overlap.unshift(piece);
        }
        current = overlap;
        isNew = true;
        continue;
      }
      // A new chunk's overlap gives way, oldest first, to a split that would not fit beside it.
      while (current.length > 0 && currentTokens + split.tokens > size) {
        currentTokens -= (current.shift() as Split).tokens;
      }
      current.push(split);
      currentTokens += split.tokens;
      isNew = false;
      index++;
    }
    if (!isNew) chunks.push(current);
    return chunks;
  }
}

function joinPieces(pieces: readonly Split[]): string {
  return pieces.length === 1 ? (pieces[0] as Split).text : pieces.map((piece) => piece.text).join("");
}

/** Like Python's `re.findall`, but any text between matches is kept as its own piece. */
function splitByRegex(text: string, regex: RegExp): string[] {
  const pieces: string[] = [];
  let last = 0;
  for (const match of text.matchAll(regex)) {
    if (match[0] === "") continue;
    if (match.index > last) pieces.push(text.slice(last, match.index));
    pieces.push(match[0]);
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push(text.slice(last));
  return pieces;
}
