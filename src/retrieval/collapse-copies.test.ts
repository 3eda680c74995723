import { describe, expect, it } from "vitest";
import { ImageNode } from "../schema/image-node.js";
import { SAME_TEXT_KEY } from "../schema/node-source.js";
import { MetadataMode, type NodeWithScore, TextNode } from "../schema/text-node.js";
import { collapseCopies } from "./collapse-copies.js";
import type { Retriever } from "./retriever.js";

const found = (file: string, text: string, score: number): NodeWithScore => ({
  node: new TextNode({ id: `${file}#0`, text, metadata: { file_path: file } }),
  score,
});

/** A retriever over a ranked list, recording how many nodes each call asked for. */
function ranked(list: NodeWithScore[]): { retrieverFor: (k: number) => Retriever; asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    retrieverFor: (k) => ({
      retrieve: async () => {
        asked.push(k);
        return list.slice(0, k);
      },
    }),
  };
}

describe("collapseCopies", () => {
  it("returns the retriever's nodes unchanged when no two texts are the same, asking once", async () => {
    const list = [found("a.md", "alpha", 3), found("b.md", "beta", 2), found("c.md", "gamma", 1)];
    const { retrieverFor, asked } = ranked(list);
    const nodes = await collapseCopies(retrieverFor, 2).retrieve({ query: "q" });
    expect(nodes).toEqual(list.slice(0, 2));
    expect(nodes[0]).toBe(list[0]);
    expect(asked).toEqual([2]);
  });

  it("keeps the best-ranked copy, lists where the others are (hidden from the model), and asks once more", async () => {
    const list = [
      found("gnupg/changelog", "2.2.40: fixes", 9),
      found("gnupg-l10n/changelog", "2.2.40: fixes", 9),
      found("gnupg-utils/changelog", "2.2.40: fixes", 8),
      found("gnupg/NEWS", "Noteworthy changes", 7),
      found("dirmngr/changelog", "2.2.40: fixes", 6),
      found("gnupg/README", "Read me", 5),
    ];
    const { retrieverFor, asked } = ranked(list);
    const nodes = await collapseCopies(retrieverFor, 3).retrieve({ query: "q" });
    expect(asked).toEqual([3, 24]);
    expect(nodes.map(({ node }) => node.metadata.file_path)).toEqual([
      "gnupg/changelog",
      "gnupg/NEWS",
      "gnupg/README",
    ]);
    const kept = nodes[0] as NodeWithScore;
    expect(kept.score).toBe(9);
    expect(kept.node.metadata[SAME_TEXT_KEY]).toEqual([
      "gnupg-l10n/changelog",
      "gnupg-utils/changelog",
      "dirmngr/changelog",
    ]);
    expect(kept.node.getContent(MetadataMode.LLM)).toBe("file_path: gnupg/changelog\n\n2.2.40: fixes");
    expect(kept.node.getContent(MetadataMode.EMBED)).not.toContain(SAME_TEXT_KEY);
    // The retriever's own node is left as it was.
    expect((list[0] as NodeWithScore).node.metadata[SAME_TEXT_KEY]).toBeUndefined();
    expect(nodes[1]).toBe(list[3]);
  });

  it("names a copy from the smallest file, with its own score: the page, not the one that holds every page", async () => {
    const sized = (file: string, size: number, text: string, score: number): NodeWithScore => ({
      node: new TextNode({ id: `${file}#0`, text, metadata: { file_path: file, file_size: size } }),
      score,
    });
    // As Node's API docs rank them: all.html's copy a little higher (its title and name weigh in).
    const list = [
      sized("api/all.html", 5_000_000, "--max-old-space-size", 4.2),
      sized("api/all.html", 5_000_000, "resourceLimits", 4.1),
      sized("api/cli.html", 90_000, "--max-old-space-size", 4),
      sized("api/worker_threads.html", 80_000, "resourceLimits", 3),
      sized("notes.md", 10, "heap notes", 3.5),
    ];
    const nodes = await collapseCopies(ranked(list).retrieverFor, 3).retrieve({ query: "q" });
    expect(
      nodes.map(({ node, score }) => [node.metadata.file_path, node.metadata[SAME_TEXT_KEY], score]),
    ).toEqual([
      ["api/cli.html", ["api/all.html"], 4],
      ["notes.md", undefined, 3.5],
      ["api/worker_threads.html", ["api/all.html"], 3],
    ]);
    // Files of one size (or none given): the best-ranked copy is named, as before.
    const same = [sized("a/changelog", 100, "fixes", 2), sized("b/changelog", 100, "fixes", 1)];
    const kept = await collapseCopies(ranked(same).retrieverFor, 2).retrieve({ query: "q" });
    expect(kept.map(({ node }) => [node.metadata.file_path, node.metadata[SAME_TEXT_KEY]])).toEqual([
      ["a/changelog", ["b/changelog"]],
    ]);
  });

  it("takes another format's form of a passage (most of its word 5-grams) for a copy, never one of the same format", async () => {
    const formatted = (
      file: string,
      format: string,
      text: string,
      score: number,
      extra = {},
    ): NodeWithScore => ({
      node: new TextNode({ id: `${file}#0`, text, metadata: { file_path: file, format, ...extra } }),
      score,
    });
    // One section of Debian's reference as its PDF, its plain text (gzipped) and its HTML chapter give it: other
    // line breaks, quotes and markup, the same words; the PDF's chunk runs on into the next section.
    const section =
      "The system wide default locale value set in /etc/default/locale may be overridden by the GUI configuration for GUI applications. This behavior is the same way as LANG is set by LANG=en_US.UTF-8 for the command line.";
    const pdf = `8.1 The locale\n${section.replace(/ for GUI/, "\nfor GUI")} 8.2 Keyboard input\nThe keyboard layout is set by the setupcon command from the console-setup package.`;
    const txt = section.replace(/LANG/g, '"$LANG"').replace(/\. /g, ".\n    ");
    const html = `## 8.1. The locale\n\n${section.replace("/etc/default/locale", "”/etc/default/locale”")}`;
    const list = [
      formatted("ref.pdf", "pdf", pdf, 9, { file_size: 1_281_892 }),
      formatted("ref.txt.gz", "gzip", txt, 8.9, {
        inner_format: "text",
        compression: "gzip",
        file_size: 219_433,
      }),
      formatted("ch08.html", "html", html, 8.5, { file_size: 47_537 }),
      // Same format, most words shared (an older version of the page, one sentence rewritten): kept, as LlamaIndex
      // keeps it; it meets the group only through the PDF's and the text's forms, of other formats.
      formatted(
        "old/ch08.html",
        "html",
        html.replace(
          "This behavior is the same way as LANG is set by",
          "Older releases read only the variable given on the command line, as in",
        ),
        8.4,
        { file_size: 47_000 },
      ),
      formatted("ch09.html", "html", "Tips for the shell: use the history.", 8, { file_size: 9_000 }),
      // Too short to be called a copy by its words, though every word is in the section.
      formatted("notes.md", "markdown", "the same way as LANG is set", 7),
    ];
    const nodes = await collapseCopies(ranked(list).retrieverFor, 6).retrieve({ query: "q" });
    expect(
      nodes.map(({ node, score }) => [node.metadata.file_path, node.metadata[SAME_TEXT_KEY], score]),
    ).toEqual([
      // The chapter's page is named (the smallest file; a gzipped file's size is not its text's), with its score.
      ["ch08.html", ["ref.pdf", "ref.txt.gz"], 8.5],
      ["old/ch08.html", undefined, 8.4],
      ["ch09.html", undefined, 8],
      ["notes.md", undefined, 7],
    ]);
    // The gzipped text ranked first (its size unknown): the PDF, whose place names its headings, is named instead.
    const located = formatted("ref.pdf", "pdf", pdf, 8.9, {
      file_size: 1_281_892,
      location: {
        file: "ref.pdf",
        headingPath: ["I18N and L10N", "8.1 The locale"],
        pages: { start: 157, end: 158 },
      },
    });
    const textFirst = [{ ...(list[1] as NodeWithScore), score: 9 }, located];
    const named = await collapseCopies(ranked(textFirst).retrieverFor, 2).retrieve({ query: "q" });
    expect(
      named.map(({ node, score }) => [node.metadata.file_path, node.metadata[SAME_TEXT_KEY], score]),
    ).toEqual([["ref.pdf", ["ref.txt.gz"], 8.9]]);
  });

  it("takes a page of the same format for a copy when all but a few words are the same, never a chunk of one file", async () => {
    // The Debian Administrator's Handbook's untranslated pages, in each language's folder: "Example 8.2" translated.
    const page = (label: string) =>
      `## 8.2.1. Ethernet Interface\n\nIf the computer has an Ethernet card, the IP network that is associated with it must be configured by choosing from one of two methods. The simplest method is dynamic configuration with DHCP, and it requires a DHCP server on the local network.\n\n${label} 8.2. Static configuration\n\nauto enp0s31f6\niface enp0s31f6 inet static\n  address 192.168.0.3/24\n  gateway 192.168.0.1`;
    const html = (file: string, text: string, score: number): NodeWithScore => ({
      node: new TextNode({ id: `${file}#0`, text, metadata: { file_path: file, format: "html" } }),
      score,
    });
    const list = [
      html("cs-CZ/network.html", page("Příklad"), 9),
      html("ko-KR/network.html", page("예"), 9),
      html("en-US/network.html", page("Example"), 9),
      // A sentence rewritten: a version of the page, not a copy (about one 5-gram in four differs).
      html(
        "old/network.html",
        page("Example").replace(
          "The simplest method is dynamic configuration with DHCP, and it requires",
          "Most people let DHCP configure it, which needs",
        ),
        7,
      ),
    ];
    const nodes = await collapseCopies(ranked(list).retrieverFor, 4).retrieve({ query: "q" });
    expect(nodes.map(({ node }) => [node.id, node.metadata[SAME_TEXT_KEY]])).toEqual([
      ["cs-CZ/network.html#0", ["ko-KR/network.html", "en-US/network.html"]],
      ["old/network.html#0", undefined],
    ]);
    // One file's chunks that overlap (the splitter's overlap; here a last chunk that is nearly all overlap): both kept.
    const whole = page("Example");
    const last = {
      node: new TextNode({
        id: "en-US/network.html#1",
        text: whole.slice(whole.indexOf("The simplest")),
        metadata: { file_path: "en-US/network.html", format: "html" },
      }),
      score: 8,
    };
    const ownFile = [html("en-US/network.html", whole, 9), last];
    const both = await collapseCopies(ranked(ownFile).retrieverFor, 2).retrieve({ query: "q" });
    expect(both.map(({ node }) => node.id)).toEqual(["en-US/network.html#0", "en-US/network.html#1"]);
  });

  it("asks at most twice, the second time for maxTopK, and not again when the first answer was short", async () => {
    const copies = Array.from({ length: 40 }, (_, index) =>
      found(`copy${index}.txt`, "the same", 40 - index),
    );
    const exhausted = ranked(copies.slice(0, 5));
    expect(await collapseCopies(exhausted.retrieverFor, 2).retrieve({ query: "q" })).toHaveLength(1);
    expect(exhausted.asked).toEqual([2, 16]);
    const short = ranked(copies.slice(0, 1));
    expect(await collapseCopies(short.retrieverFor, 2).retrieve({ query: "q" })).toHaveLength(1);
    expect(short.asked).toEqual([2]);
    const capped = ranked(copies);
    const nodes = await collapseCopies(capped.retrieverFor, 2, { maxTopK: 10 }).retrieve({ query: "q" });
    expect(capped.asked).toEqual([2, 10]);
    expect(nodes[0]?.node.metadata[SAME_TEXT_KEY]).toHaveLength(9);
  });

  it("never merges images, and drops a repeat from the same file without listing it", async () => {
    const image = (file: string) => ({
      node: new ImageNode({ id: file, text: "diagram", metadata: { file_path: file }, imagePath: file }),
      score: 1,
    });
    const list = [image("a.png"), image("b.png"), found("a.md", "same", 1), found("a.md", "same", 1)];
    const nodes = await collapseCopies(ranked(list).retrieverFor, 4).retrieve({ query: "q" });
    expect(nodes.map(({ node }) => node.id)).toEqual(["a.png", "b.png", "a.md#0"]);
    expect(nodes[2]?.node.metadata[SAME_TEXT_KEY]).toBeUndefined();
  });

  it("refuses a retrieverFor that is not a function and counts that are not whole numbers", () => {
    const { retrieverFor } = ranked([]);
    expect(() => collapseCopies({} as never, 2)).toThrow(/retrieverFor.*function/s);
    expect(() => collapseCopies(retrieverFor, 0)).toThrow(/topK/);
    expect(() => collapseCopies(retrieverFor, 2.5)).toThrow(/topK/);
    expect(() => collapseCopies(retrieverFor, 4, { maxTopK: 3 })).toThrow(/maxTopK/);
  });
});
