import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { setDocumentBlocks } from "../reader/document-blocks.js";
import { markdownBlocks } from "../reader/formats/markdown.js";
import type { DocumentBlock } from "../reader/formats/types.js";
import { TextNode } from "../schema/text-node.js";
import { recordingTokenizer } from "../tokenizer/recording-tokenizer.test.util.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer, TokenizerName } from "../tokenizer/tokenizer.js";
import { BlockFit } from "./block-fit.js";
import { renderBlock, renderBlocks, type Section, sectionsOf } from "./block-sections.js";
import { BlockSplitter } from "./block-splitter.js";

const names: TokenizerName[] = ["cl100k_base", "o200k_base", "r50k_base"];

/**
 * The reference: the same counts from a tokenizer BlockFit knows nothing of, so every "does it fit?" counts the
 * whole rendered candidate (`countUpTo(renderBlocks(blocks), budget) <= budget`), as packing did before.
 */
function opaque(tokenizer: Tokenizer): Tokenizer {
  return {
    name: "reference",
    count: (text) => tokenizer.count(text),
    countUpTo: (text, limit) => (tokenizer.countUpTo as (text: string, limit: number) => number)(text, limit),
    encode: (text) => tokenizer.encode(text),
    ...(tokenizer.pretokenizer ? { pretokenizer: tokenizer.pretokenizer } : {}),
  };
}

const word = fc.oneof(
  fc.stringMatching(/^[a-z]{1,8}$/),
  fc.constantFrom(
    "東京都",
    "日本語の文章です。",
    "Café",
    "naïve",
    "42",
    "3.14",
    "x.",
    "(a)",
    "/usr/bin",
    "don't",
  ),
  fc.constantFrom("```", "~~~", "a/b", "#tag", "- dash", "| cell |", "'s", "\u3000", "e\u0301"),
);
const line = fc.array(word, { minLength: 0, maxLength: 12 }).map((parts) => parts.join(" "));
// Long lines: CJK without spaces (the tokenizer's windows cut it mid-run past 2048 characters), long runs.
const longLine = fc.oneof(
  fc.integer({ min: 100, max: 3000 }).map((length) => "字".repeat(length)),
  fc.integer({ min: 400, max: 1500 }).map((length) => "x".repeat(length)),
  fc
    .integer({ min: 50, max: 400 })
    .map((count) => Array.from({ length: count }, (_, i) => `w${i}`).join(" ")),
);
const kind = fc.constantFrom<DocumentBlock["kind"]>("heading", "paragraph", "code", "list_item", "table_row");

/** Blocks as any reader may give them: empty, with leading or trailing whitespace, long, CJK. */
const rawBlock: fc.Arbitrary<DocumentBlock> = fc
  .tuple(
    kind,
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => lines.join("\n")),
      },
      { weight: 1, arbitrary: longLine },
      { weight: 1, arbitrary: fc.constantFrom("", " ", "\n", " lead", "trail ", "/slash", "\tx") },
    ),
    fc.integer({ min: 1, max: 4 }),
  )
  .map(([blockKind, text, depth]) => ({
    kind: blockKind,
    text: blockKind === "heading" ? text.replace(/\n/g, " ").slice(0, 40) : text,
    ...(blockKind === "heading" ? { depth } : {}),
    ...(blockKind === "code" ? { language: "ts" } : {}),
  }));

/** A Markdown source: the blocks its reader gives. */
const markdown = fc
  .array(
    fc.oneof(
      fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => lines.join("\n")),
      fc.array(line, { minLength: 1, maxLength: 12 }).map((lines) => `\`\`\`js\n${lines.join("\n")}\n\`\`\``),
      fc
        .array(line, { minLength: 1, maxLength: 8 })
        .map((lines) => lines.map((item) => `- ${item}`).join("\n")),
      fc
        .array(line, { minLength: 1, maxLength: 6 })
        .map((rows) => rows.map((row) => `| ${row} | x |`).join("\n")),
      fc
        .tuple(fc.integer({ min: 1, max: 4 }), fc.array(word, { minLength: 1, maxLength: 4 }))
        .map(([depth, parts]) => `${"#".repeat(depth)} ${parts.join(" ")}`),
      longLine,
    ),
    { minLength: 1, maxLength: 25 },
  )
  .map((parts) => parts.join("\n\n"));

function documentOf(blocks: DocumentBlock[], text = ""): TextNode {
  const document = new TextNode({ id: "doc.md", text, metadata: { file_path: "doc.md" } });
  setDocumentBlocks(document, blocks);
  return document;
}

/**
 * True when some block does not fit a chunk alone under its headings: the splitter then cuts it with a sentence
 * splitter, whose pieces are counted apart from the heading path (the budget rule is only asserted without such).
 */
function someBlockIsCut(blocks: DocumentBlock[], tokenizer: Tokenizer, chunkSize: number): boolean {
  const tooLong = (list: DocumentBlock[]) => tokenizer.count(renderBlocks(list)) > chunkSize;
  const visit = (section: Section): boolean =>
    (section.heading !== undefined && tooLong([...section.parentPath, section.heading])) ||
    section.body.some((block) => tooLong([...section.path, block])) ||
    section.children.some(visit);
  return sectionsOf(blocks).some(visit);
}

/** The nodes, or the error the splitter threw (a chunk too small for one character under its headings). */
function nodesOf(splitter: BlockSplitter, document: TextNode) {
  try {
    return splitter
      .getNodesFromDocuments([document])
      .map((node) => ({ id: node.id, text: node.text, metadata: node.metadata }));
  } catch (error) {
    return String(error);
  }
}

describe("BlockFit", () => {
  for (const name of names) {
    it(`${name}: answers as an exact count of the rendered blocks does, for any blocks and budget`, () => {
      const tokenizer = resolveTokenizer(name);
      const fit = new BlockFit(tokenizer);
      fc.assert(
        fc.property(
          fc.array(rawBlock, { minLength: 1, maxLength: 12 }),
          fc.integer({ min: 1, max: 600 }),
          (blocks, budget) => {
            const exact = tokenizer.count(renderBlocks(blocks));
            expect(fit.fits(blocks, budget)).toBe(exact <= budget);
            // Asked again (counts now cached), and at the exact count's edge.
            expect(fit.fits(blocks, exact)).toBe(true);
            if (exact > 0) expect(fit.fits(blocks, exact - 1)).toBe(false);
          },
        ),
        { numRuns: 300 },
      );
    });

    it(`${name}: gives each block's own count, the tokenizer's count of it rendered`, () => {
      const tokenizer = resolveTokenizer(name);
      const fit = new BlockFit(tokenizer);
      fc.assert(
        fc.property(fc.array(rawBlock, { minLength: 1, maxLength: 6 }), (blocks) => {
          // Half the time after fits() has counted the blocks, half the time before.
          if (blocks.length % 2 === 0) fit.fits(blocks, 50);
          for (const block of blocks) expect(fit.tokens(block)).toBe(tokenizer.count(renderBlock(block)));
        }),
        { numRuns: 200 },
      );
    });
  }

  it("counts a block once however often its count is asked for", () => {
    const { tokenizer, counted } = recordingTokenizer(resolveTokenizer("cl100k_base"));
    const fit = new BlockFit(tokenizer);
    const block: DocumentBlock = { kind: "list_item", text: "one item\nwrapped" };
    for (let index = 0; index < 3; index++)
      expect(fit.tokens(block)).toBe(tokenizer.count(renderBlock(block)));
    // Three answers from the BlockFit, plus the three counts this test took itself to check them.
    expect(counted.filter((text) => text === renderBlock(block))).toHaveLength(4);
  });
});

describe("BlockFit on a block that cannot fit", () => {
  it("counts it only until it passes the budget, and not again for a smaller one", () => {
    const tokenizer = resolveTokenizer("cl100k_base");
    const long: DocumentBlock = { kind: "paragraph", text: "word ".repeat(20_000).trim() };
    const short: DocumentBlock = { kind: "paragraph", text: "A short paragraph." };
    const whole = vi.spyOn(tokenizer, "count");
    const upTo = vi.spyOn(tokenizer, "countUpTo");
    try {
      const fit = new BlockFit(tokenizer);
      expect(fit.fits([long], 100)).toBe(false);
      expect(fit.fits([short, long], 100)).toBe(false);
      expect(fit.fits([long], 50)).toBe(false);
      // The long block counted once, up to 100 tokens (not its 20,000), and the short one once; nothing whole.
      expect(whole).not.toHaveBeenCalled();
      expect(upTo.mock.calls.map(([text, limit]) => [text.length, limit])).toEqual([
        [renderBlock(long).length, 100],
        [renderBlock(short).length + 2, 100],
      ]);
      expect(upTo.mock.results[0]?.value).toBeGreaterThan(100);
      expect(upTo.mock.results[0]?.value).toBeLessThan(20_000);
      // Its own count, when asked for, is still exact.
      whole.mockClear();
      expect(fit.tokens(long)).toBe(tokenizer.count(renderBlock(long)));
    } finally {
      whole.mockRestore();
      upTo.mockRestore();
    }
  });
});

describe("BlockSplitter packing with BlockFit", () => {
  for (const name of names) {
    it(`${name}: gives the same nodes (ids, texts, metadata, locations) as counting every candidate whole`, () => {
      const tokenizer = resolveTokenizer(name);
      let budgetChecked = 0;
      fc.assert(
        fc.property(
          fc.oneof(
            markdown.map((text) => ({ text, blocks: markdownBlocks(text) })),
            fc.array(rawBlock, { minLength: 1, maxLength: 25 }).map((blocks) => ({ text: "", blocks })),
          ),
          fc.integer({ min: 20, max: 400 }),
          fc.integer({ min: 0, max: 40 }),
          ({ text, blocks }, chunkSize, overlap) => {
            const chunkOverlap = Math.min(overlap, chunkSize - 1);
            const fast = new BlockSplitter({ chunkSize, chunkOverlap, tokenizer, includeMetadata: false });
            const reference = new BlockSplitter({
              chunkSize,
              chunkOverlap,
              tokenizer: opaque(tokenizer),
              includeMetadata: false,
            });
            const nodes = nodesOf(fast, documentOf(blocks, text));
            expect(nodes).toEqual(nodesOf(reference, documentOf(blocks, text)));
            // The budget rule, by an exact count, for chunks of whole blocks.
            if (someBlockIsCut(blocks, tokenizer, chunkSize)) return;
            budgetChecked++;
            if (typeof nodes === "string") throw new Error(`no block cut, yet ${nodes}`);
            for (const node of nodes) expect(tokenizer.count(node.text)).toBeLessThanOrEqual(chunkSize);
          },
        ),
        { numRuns: 150 },
      );
      expect(budgetChecked).toBeGreaterThan(20);
    });
  }

  it("counts a block changed between two documents' splits afresh", () => {
    const blocks: DocumentBlock[] = [
      { kind: "heading", depth: 1, text: "Title" },
      { kind: "paragraph", text: "short" },
      { kind: "paragraph", text: "also short" },
    ];
    const splitter = new BlockSplitter({ chunkSize: 30, chunkOverlap: 0, includeMetadata: false });
    expect(nodesOf(splitter, documentOf(blocks))).toHaveLength(1);
    (blocks[1] as DocumentBlock).text = Array.from({ length: 20 }, (_, index) => `word${index}`).join(" ");
    const again = nodesOf(splitter, documentOf(blocks));
    expect(again).toEqual(
      nodesOf(
        new BlockSplitter({ chunkSize: 30, chunkOverlap: 0, includeMetadata: false }),
        documentOf(blocks),
      ),
    );
    expect(again.length).toBeGreaterThan(1);
  });
});
