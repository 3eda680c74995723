import { optionsOf } from "../errors/check-options.js";
import { getDocumentBlocks } from "../reader/document-blocks.js";
import type { DocumentBlock } from "../reader/formats/types.js";
import { withoutImages } from "../reader/image-references.js";
import { checkTextNode, checkTextNodes } from "../schema/check-text-nodes.js";
import { ImageNode } from "../schema/image-node.js";
import type { NodeLocation } from "../schema/node-location.js";
import type { TextNode } from "../schema/text-node.js";
import { cutsOnlyAtPieceStarts } from "../tokenizer/bounded-pieces.js";
import { type LineBreakCut, lineBreakCut } from "../tokenizer/line-break-cut.js";
import { isTokenizerName, resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { BlockFit } from "./block-fit.js";
import { renderBlock, renderBlocks, type Section, sectionBlocks, sectionsOf } from "./block-sections.js";
import { blockNode, withLines } from "./located-nodes.js";
import { longestMetadataStr, metadataTokens } from "./metadata-room.js";
import { COUNTED_CHUNKS, SentenceSplitter, type SentenceSplitterOptions } from "./sentence-splitter.js";

// More characters than a token of the supported encodings holds in practice. Only ever used to say "does not fit"
// early: were a token longer, a section would be packed block by block (each block's fit checked exactly), never
// over the budget.
const MAX_TOKEN_CHARS = 256;

/** Options of {@link BlockSplitter}: those of {@link SentenceSplitter}, whose defaults it shares. */
export type BlockSplitterOptions = SentenceSplitterOptions;

interface Piece {
  text: string;
  /** The headings above the chunk, repeated at its start. */
  path: readonly DocumentBlock[];
  /** The chunk's own blocks. */
  blocks: readonly DocumentBlock[];
  /** The texts of the headings of the section(s) the chunk keeps to. */
  headingPath: string[];
}

/**
 * Splits documents into chunks that follow their structure. A document read by a format reader (its blocks from
 * `getDocumentBlocks`) is packed block by block: a section (a heading and everything under it) that fits in
 * `chunkSize` tokens is one chunk; a longer one gives its own text, then each subsection, their chunks. A code
 * block, table row or list item is never cut when it fits in a chunk; a longer block is cut by a
 * {@link SentenceSplitter}. Each chunk's text starts with the headings it sits under (as `#` lines, so BM25 counts
 * their words twice) and each node carries its {@link NodeLocation} in `metadata.location`, hidden from the LLM
 * and the embedder. A document without blocks (plain text) goes through a {@link SentenceSplitter} with the same
 * options, its nodes given their file and line range.
 *
 * @example
 * const nodes = new BlockSplitter({ chunkSize: 512 }).getNodesFromDocuments(documents);
 */
export class BlockSplitter {
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  readonly includeMetadata: boolean;
  readonly tokenizer: Tokenizer;
  readonly #options: SentenceSplitterOptions;
  readonly #plain: SentenceSplitter;
  readonly #cutters = new Map<number, SentenceSplitter>();
  /** Per-block counts of the document being split: a new one per document, so a block changed since is recounted. */
  #fit: BlockFit;
  readonly #lineCut: LineBreakCut | undefined;

  /** @throws InvalidArgumentError as {@link SentenceSplitter} does. */
  constructor(options: BlockSplitterOptions = {}) {
    const given = optionsOf(
      "options",
      options,
      "{ chunkSize?, chunkOverlap?, tokenizer?, includeMetadata?, … }",
    );
    this.#plain = new SentenceSplitter(given);
    this.#options = given;
    this.chunkSize = this.#plain.chunkSize;
    this.chunkOverlap = this.#plain.chunkOverlap;
    this.includeMetadata = this.#plain.includeMetadata;
    this.tokenizer = this.#plain.tokenizer;
    this.#fit = new BlockFit(this.tokenizer);
    this.#lineCut = lineBreakCut(this.tokenizer);
  }

  /** Its settings as a cached index records them: `block:<chunkSize>/<chunkOverlap>:<tokenizer>`. */
  get id(): string {
    return `block:${this.chunkSize}/${this.chunkOverlap}:${this.tokenizer.name}${this.includeMetadata ? "" : ":no-metadata"}`;
  }

  /**
   * Its options as plain data, from which another thread builds the same splitter (an index build splits in worker
   * threads, `split-pool.ts`); `undefined` when they hold a function (`chunkingTokenizerFn`) or a tokenizer other
   * than a built-in encoding, which cannot be sent to one.
   */
  get plainOptions(): BlockSplitterOptions | undefined {
    const { chunkingTokenizerFn, tokenizer: _given, ...plain } = this.#options;
    const { name } = this.tokenizer;
    if (
      chunkingTokenizerFn !== undefined ||
      !isTokenizerName(name) ||
      resolveTokenizer(name) !== this.tokenizer
    )
      return undefined;
    return { ...plain, tokenizer: name };
  }

  /** Splits documents into nodes with ids `<document id>#<chunk number>`, each with its `metadata.location`. */
  getNodesFromDocuments(documents: readonly TextNode[]): TextNode[] {
    checkTextNodes(documents, "documents");
    const nodes: TextNode[] = [];
    for (const document of documents) for (const node of this.iterateNodes(document)) nodes.push(node);
    return nodes;
  }

  /**
   * One document's nodes, one at a time: the work between two nodes is one chunk's, so a caller can yield to the
   * event loop between them (Ctrl-C, progress) even inside a very large document.
   */
  *iterateNodes(document: TextNode): Generator<TextNode> {
    checkTextNode(document, "document");
    if (ImageNode.isInstance(document)) {
      yield document;
      return;
    }
    const blocks = getDocumentBlocks(document);
    if (!blocks) {
      yield* this.#plainNodes(document);
      return;
    }
    this.#fit = new BlockFit(this.tokenizer);
    const metadata = this.includeMetadata ? metadataTokens(this.tokenizer, longestMetadataStr(document)) : 0;
    const budget = Math.max(1, this.chunkSize - metadata);
    let index = 0;
    for (const piece of this.#packSections(sectionsOf(blocks), [], budget)) {
      yield blockNode(document, index++, piece);
    }
  }

  /**
   * True when the blocks under the heading path fit `budget` tokens. No token is longer than
   * {@link MAX_TOKEN_CHARS} characters, so blocks with more than that many characters per token of the budget cannot
   * fit: a large section is turned down without rendering its text (a 30 MB file's one section took ~0.4 s).
   */
  #blocksFit(path: readonly DocumentBlock[], blocks: readonly DocumentBlock[], budget: number): boolean {
    let chars = 0;
    for (const block of blocks) {
      chars += block.text.length;
      if (chars > budget * MAX_TOKEN_CHARS) return false;
    }
    return this.#fit.fits([...path, ...blocks], budget);
  }

  /**
   * Sections in a row, each whole when it fits: neighbours that fit together share a chunk (under the headings
   * above them); one that does not fit gives its own blocks' chunks, then its subsections'.
   */
  *#packSections(
    sections: readonly Section[],
    path: readonly DocumentBlock[],
    budget: number,
  ): Generator<Piece> {
    let group: Section[] = [];
    let groupBlocks: DocumentBlock[] = [];
    const close = (): Piece | undefined => {
      let piece: Piece | undefined;
      if (groupBlocks.length > 0) {
        const text = this.#withPath(path, groupBlocks);
        const only = group.length === 1 ? (group[0] as Section) : undefined;
        piece = {
          text,
          path,
          blocks: groupBlocks,
          headingPath: texts(only ? only.path : path),
        };
      }
      group = [];
      groupBlocks = [];
      return piece;
    };
    for (const section of sections) {
      const blocks = sectionBlocks(section);
      if (blocks.length === 0) continue;
      if (this.#blocksFit(path, [...groupBlocks, ...blocks], budget)) {
        group.push(section);
        groupBlocks.push(...blocks);
        continue;
      }
      const closed = close();
      if (closed) yield closed;
      if (this.#blocksFit(path, blocks, budget)) {
        group = [section];
        groupBlocks = [...blocks];
        continue;
      }
      // A heading with no text of its own is carried by its subsections' heading paths instead.
      if (section.body.length > 0 || section.children.length === 0) {
        const own = section.heading ? [section.heading, ...section.body] : section.body;
        yield* this.#packBlocks(section, own, budget);
      }
      yield* this.#packSections(section.children, section.path, budget);
    }
    const last = close();
    if (last) yield last;
  }

  /** Greedy packing of a section's own blocks, each chunk starting with the heading path, blocks overlapping. */
  *#packBlocks(section: Section, blocks: readonly DocumentBlock[], budget: number): Generator<Piece> {
    // A chunk that opens with the section's heading has the headings above it as path; any other, all of them.
    const pathFor = (list: readonly DocumentBlock[]) =>
      list[0] === section.heading ? section.parentPath : section.path;
    const fits = (list: readonly DocumentBlock[]) => this.#fit.fits([...pathFor(list), ...list], budget);
    let current: DocumentBlock[] = [];
    const close = (): Piece | undefined => {
      let piece: Piece | undefined;
      // A heading alone is a chunk only for a section with nothing else (its subsections carry it otherwise).
      if (
        current.some((block) => block !== section.heading) ||
        (current.length > 0 && section.body.length === 0)
      ) {
        const path = pathFor(current);
        const text = this.#withPath(path, current);
        piece = {
          text,
          path,
          blocks: current,
          headingPath: texts(section.path),
        };
      }
      current = [];
      return piece;
    };
    for (const block of blocks) {
      const candidate = [...current, block];
      if (fits(candidate)) {
        current = candidate;
        continue;
      }
      const overlap = this.#overlap(current, section.heading);
      const closed = close();
      if (closed) yield closed;
      const fresh = [...overlap, block];
      if (fits(fresh)) current = fresh;
      else if (fits([block])) current = [block];
      else yield* this.#cutBlock(pathFor([block]), block, budget, texts(section.path));
    }
    const last = close();
    if (last) yield last;
  }

  /** The last blocks of a closed chunk (at most `chunkOverlap` tokens, never its heading) to repeat in the next. */
  #overlap(blocks: readonly DocumentBlock[], heading: DocumentBlock | undefined): DocumentBlock[] {
    const kept: DocumentBlock[] = [];
    let tokens = 0;
    for (let index = blocks.length - 1; index >= 0; index--) {
      const block = blocks[index] as DocumentBlock;
      if (block === heading) break;
      tokens += this.#fit.tokens(block) + 1;
      if (tokens > this.chunkOverlap) break;
      kept.unshift(block);
    }
    return kept;
  }

  /**
   * A block too long for one chunk, cut by a sentence splitter into pieces that fit beside the heading path. A
   * piece whose rendering still comes out over `budget` (a block's markup repeated per line, tokens merging across
   * the joins) is cut again with less room, so no chunk is ever over `chunkSize` unless its heading path alone is.
   */
  *#cutBlock(
    path: readonly DocumentBlock[],
    block: DocumentBlock,
    budget: number,
    headingPath: string[],
    maxRoom?: number,
  ): Generator<Piece> {
    let prefix = path.length > 0 ? `${renderBlocks(path)}\n\n` : "";
    let room = maxRoom;
    if (room === undefined) {
      let prefixTokens = this.tokenizer.count(prefix);
      // A heading path that would take over half of every piece stays out of the text (the location keeps it):
      // repeated in each piece it left room for a word or two, and an 80-sentence paragraph became 2,272 chunks.
      if (prefixTokens > budget / 2) {
        prefix = "";
        prefixTokens = this.tokenizer.count(prefix);
        path = [];
      }
      const wrapper = this.tokenizer.count(renderBlock({ ...block, text: "" }));
      room = Math.max(1, budget - prefixTokens - wrapper - 1);
    }
    const cutter = this.#cutter(room);
    const lines = block.lines;
    const textLines = block.text.split("\n").length;
    // A fenced code block's text starts a line below the block (its fence).
    const lead = lines ? Math.max(0, Math.min(1, lines.end - lines.start + 1 - textLines)) : 0;
    let searchFrom = 0;
    // Line breaks before `counted` in the block's text: chunks come in order, so each stretch is scanned once (from
    // the start for every chunk, a 1 MB block's lines took ~0.5 s of the bench's large corpus).
    let counted = 0;
    let breaks = 0;
    // The prefix's count, once (only asked for when a piece's own count is known).
    let prefixCount: number | undefined;
    for (const { text: chunk, tokens: chunkTokens } of cutter[COUNTED_CHUNKS](block.text)) {
      const at = block.text.indexOf(chunk, searchFrom);
      const part: DocumentBlock = { ...block, text: chunk };
      if (lines && at >= 0) {
        searchFrom = at + 1;
        breaks += countNewlines(block.text, counted, at);
        counted = at;
        const first = lines.start + lead + breaks;
        const last = first + countNewlines(chunk, 0, chunk.length);
        part.lines = { start: Math.min(first, lines.end), end: Math.min(last, lines.end) };
      }
      const rendered = renderBlock(part);
      const text = `${prefix}${rendered}`;
      let tokens: number | undefined;
      // A piece rendered as it is, after a prefix ending in a blank line, counts as the two apart where the
      // encoding's line-break cut says so (the piece starts with a non-space character: it was trimmed).
      if (chunkTokens !== undefined && rendered === chunk) {
        if (prefix === "") tokens = chunkTokens;
        else if (
          this.#lineCut?.side === "after" &&
          this.#lineCut.allows(prefix, chunk) &&
          cutsOnlyAtPieceStarts(prefix) &&
          cutsOnlyAtPieceStarts(text)
        ) {
          prefixCount ??= this.tokenizer.count(prefix);
          tokens = prefixCount + chunkTokens;
        }
      }
      const over = (tokens ?? this.tokenizer.count(text)) - budget;
      if (over > 0 && room > 1)
        yield* this.#cutBlock(path, part, budget, headingPath, Math.max(1, room - over));
      else yield { text, path, blocks: [part], headingPath };
    }
  }

  #cutter(size: number): SentenceSplitter {
    let cutter = this.#cutters.get(size);
    if (!cutter) {
      cutter = new SentenceSplitter({
        ...this.#options,
        chunkSize: size,
        chunkOverlap: Math.min(this.chunkOverlap, Math.floor(size / 2)),
        tokenizer: this.tokenizer,
        includeMetadata: false,
      });
      this.#cutters.set(size, cutter);
    }
    return cutter;
  }

  #withPath(path: readonly DocumentBlock[], blocks: readonly DocumentBlock[]): string {
    return renderBlocks([...path, ...blocks]);
  }

  /** A plain document through the sentence splitter, each node with its file and line range. */
  #plainNodes(document: TextNode): TextNode[] {
    return withLines(document, this.#plain.getNodesFromDocuments([document]));
  }
}

/** The headings' texts as a location's path: without their images (a badge beside a title is not its name). */
function texts(blocks: readonly DocumentBlock[]): string[] {
  return blocks.map((block) => withoutImages(block.text));
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf("\n", from); index >= 0 && index < to; index = text.indexOf("\n", index + 1))
    count++;
  return count;
}
