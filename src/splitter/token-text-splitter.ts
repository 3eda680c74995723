import { checkInteger } from "../errors/check-integer.js";
import { checkMethod, optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer, TokenizerLike } from "../tokenizer/tokenizer.js";
import { type SplitFunction, splitByCharacter, splitBySeparator } from "./split-functions.js";

/** Tokens LlamaIndex reserves for the metadata/text separator in {@link TokenTextSplitter.splitTextMetadataAware}. */
export const DEFAULT_METADATA_FORMAT_LEN = 2;

/** Options of {@link TokenTextSplitter}; the defaults are LlamaIndex's. */
export interface TokenTextSplitterOptions {
  /** The most tokens in a chunk. @default 1024 */
  chunkSize?: number | undefined;
  /** Tokens repeated from the end of one chunk at the start of the next. At most `chunkSize`. @default 20 */
  chunkOverlap?: number | undefined;
  /** Where words end; kept at the start of the next piece. @default " " */
  separator?: string | undefined;
  /** Tried in order when a piece has no `separator` but is too long. @default ["\n"] */
  backupSeparators?: readonly string[] | undefined;
  /** Keep each chunk's leading and trailing whitespace. @default false */
  keepWhitespaces?: boolean | undefined;
  /** @default "cl100k_base" */
  tokenizer?: TokenizerLike | undefined;
}

interface Split {
  text: string;
  tokens: number;
}

/**
 * LlamaIndex's `TokenTextSplitter`: splits text at the separator, then the backup separators, then between
 * characters, and merges the pieces greedily into chunks of at most `chunkSize` tokens with `chunkOverlap`
 * tokens of overlap. Deliberate differences: a character larger than `chunkSize` throws instead of
 * recursing forever, and each chunk is counted whole: when its pieces re-tokenize together to more than
 * `chunkSize` (BPE merges across pieces), the last pieces move to the next chunk, so no chunk exceeds it.
 * @example new TokenTextSplitter({ chunkSize: 2, chunkOverlap: 1 }).splitText("foo bar hello world")
 * // ["foo bar", "bar hello", "hello world"]
 */
export class TokenTextSplitter {
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  readonly separator: string;
  readonly backupSeparators: readonly string[];
  readonly keepWhitespaces: boolean;
  readonly tokenizer: Tokenizer;
  private readonly splitFunctions: SplitFunction[];

  /**
   * @throws InvalidArgumentError for a chunk size that is not a positive integer, a negative overlap, an
   * overlap larger than the chunk size, or an empty separator
   */
  constructor(options: TokenTextSplitterOptions = {}) {
    const {
      chunkSize = 1024,
      chunkOverlap = 20,
      separator = " ",
      backupSeparators = ["\n"],
      keepWhitespaces = false,
      tokenizer,
    } = optionsOf("options", options, "{ chunkSize?, chunkOverlap?, separator?, backupSeparators?, … }");
    checkInteger("chunkSize", chunkSize, 1);
    checkInteger("chunkOverlap", chunkOverlap, 0);
    if (chunkOverlap > chunkSize) {
      throw new InvalidArgumentError({
        parameter: "chunkOverlap",
        value: chunkOverlap,
        expected: `be at most \`chunkSize\` (${chunkSize})`,
        hint: `Got a larger chunk overlap (${chunkOverlap}) than chunk size (${chunkSize}), should be smaller.`,
      });
    }
    for (const [index, value] of [separator, ...backupSeparators].entries()) {
      if (typeof value !== "string" || value === "") {
        throw new InvalidArgumentError({
          parameter: index === 0 ? "separator" : `backupSeparators[${index - 1}]`,
          value,
          expected: "be a non-empty string",
        });
      }
    }
    this.chunkSize = chunkSize;
    this.chunkOverlap = chunkOverlap;
    this.separator = separator;
    this.backupSeparators = [...backupSeparators];
    this.keepWhitespaces = keepWhitespaces;
    this.tokenizer = resolveTokenizer(tokenizer);
    this.splitFunctions = [
      splitBySeparator(separator),
      ...backupSeparators.map((backup) => splitBySeparator(backup)),
      splitByCharacter(),
    ];
  }

  /**
   * The text in chunks of at most `chunkSize` tokens. `""` gives `[""]`, as in LlamaIndex.
   * @throws InvalidArgumentError when `text` is not a string, or a single character needs more than `chunkSize` tokens
   */
  splitText(text: string): string[] {
    checkString("text", text);
    return this.splitWithSize(text, this.chunkSize);
  }

  /**
   * Chunks that leave room for `metadataStr` (plus {@link DEFAULT_METADATA_FORMAT_LEN} tokens) in `chunkSize`.
   * LlamaIndex also prints a warning when fewer than 50 tokens remain; we print nothing.
   * @throws InvalidArgumentError when the metadata leaves no room
   */
  splitTextMetadataAware(text: string, metadataStr: string): string[] {
    checkString("text", text);
    checkString("metadataStr", metadataStr);
    const metadataLength = this.tokenizer.count(metadataStr) + DEFAULT_METADATA_FORMAT_LEN;
    const effective = this.chunkSize - metadataLength;
    if (effective <= 0) {
      throw new InvalidArgumentError({
        parameter: "metadataStr",
        value: metadataStr,
        expected: `leave room for text in a chunk of ${this.chunkSize} tokens`,
        hint: `Metadata length (${metadataLength}) is longer than chunk size (${this.chunkSize}). Consider increasing the chunk size or decreasing the size of your metadata to avoid this.`,
      });
    }
    return this.splitWithSize(text, effective);
  }

  private splitWithSize(text: string, size: number): string[] {
    if (text === "") return [""];
    const memo = new Map<string, number>();
    const count = (piece: string) => {
      let tokens = memo.get(piece);
      if (tokens === undefined) {
        tokens = this.tokenizer.count(piece);
        memo.set(piece, tokens);
      }
      return tokens;
    };
    const splits: Split[] = [];
    this.split(text, size, count, splits);
    return this.merge(splits, size, count);
  }

  private split(text: string, size: number, count: (piece: string) => number, out: Split[]): void {
    const tokens = count(text);
    if (tokens <= size) {
      out.push({ text, tokens });
      return;
    }
    let pieces: string[] = [];
    for (const splitFunction of this.splitFunctions) {
      pieces = splitFunction(text);
      if (pieces.length > 1) break;
    }
    if (pieces.length <= 1) {
      throw new InvalidArgumentError({
        parameter: "chunkSize",
        value: size,
        expected: `be at least ${tokens}, the tokens of the character ${JSON.stringify(text)} on its own`,
        hint: "A chunk cannot split a character. Raise chunkSize (or shorten the metadata).",
      });
    }
    for (const piece of pieces) this.split(piece, size, count, out);
  }

  private merge(splits: readonly Split[], size: number, count: (piece: string) => number): string[] {
    const chunks: string[] = [];
    // The current chunk is splits[first, end), holding `length` tokens by the splits' own counts.
    let first = 0;
    let end = 0;
    let length = 0;
    // Emits the current chunk, verified by counting it whole; returns the end actually emitted, which is
    // smaller when the last splits re-tokenize together to more than `size` (BPE merges across pieces).
    const close = (): number => {
      for (let to = end; ; to--) {
        let chunk = "";
        for (let index = first; index < to; index++) chunk += (splits[index] as Split).text;
        if (!this.keepWhitespaces) chunk = chunk.trim();
        if (chunk === "") return to;
        if (count(chunk) <= size) {
          chunks.push(chunk);
          return to;
        }
        if (to - first === 1) {
          chunks.push(...this.splitWithSize(chunk, size));
          return to;
        }
      }
    };
    let index = 0;
    for (;;) {
      const split = splits[index];
      if (split) {
        if (end > first && length + split.tokens > size) {
          const emitted = close();
          if (emitted < end) {
            first = emitted;
            end = emitted;
            index = emitted;
            length = 0;
            continue;
          }
          // What stays is the overlap: at most chunkOverlap tokens, and room for this split.
          while (first < end && (length > this.chunkOverlap || length + split.tokens > size)) {
            length -= (splits[first] as Split).tokens;
            first += 1;
          }
        }
        index += 1;
        end = index;
        length += split.tokens;
        continue;
      }
      if (end === first) break;
      const emitted = close();
      if (emitted === end) break;
      first = emitted;
      end = emitted;
      index = emitted;
      length = 0;
    }
    return chunks;
  }
}

/**
 * The first chunk of `text` as `splitter` cuts it: the text shortened to its chunk size at a word boundary.
 * @example truncateText("foo bar", new TokenTextSplitter({ chunkSize: 1, chunkOverlap: 0 })) // "foo"
 */
export function truncateText(text: string, splitter: Pick<TokenTextSplitter, "splitText">): string {
  checkString("text", text);
  checkMethod(
    "splitter",
    splitter,
    "splitText",
    "be a splitter with splitText(text)",
    "new TokenTextSplitter({ chunkSize }) is one.",
  );
  return splitter.splitText(text)[0] ?? "";
}
