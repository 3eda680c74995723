import { describe, expect, it } from "vitest";
import { TextNode } from "../schema/text-node.js";
import { checkCitations } from "./check-citations.js";
import { createCitationNodes } from "./citation-nodes.js";
import { lexicalSupport } from "./citation-support.js";

const splitter = { splitText: (text: string) => text.split("\n\n") };
const { sources } = createCitationNodes({
  nodes: [
    {
      node: new TextNode({
        id: "sky",
        text: "The sky is red in the evening and blue in the morning.\n\nWater is wet when the sky is red.",
        metadata: { file_path: "docs/sky.md" },
      }),
    },
    { node: new TextNode({ id: "ja", text: "東京は日本の首都です。", metadata: { location: { page: 3 } } }) },
  ],
  splitter,
});

describe("checkCitations", () => {
  it("resolves each marker to its source and location", async () => {
    const { text, report } = await checkCitations({
      text: "Water is wet when the sky is red [2], which occurs in the evening [1]. 東京は首都です [3]。",
      sources,
    });
    expect(text).toBe(
      "Water is wet when the sky is red [2], which occurs in the evening [1]. 東京は首都です [3]。",
    );
    expect(
      report.citations.map((citation) => [
        citation.marker,
        citation.sourceNumber,
        citation.source.node.node.id,
      ]),
    ).toEqual([
      ["[2]", 2, "sky"],
      ["[1]", 1, "sky"],
      ["[3]", 3, "ja"],
    ]);
    expect(report.citations[0]?.source.location).toEqual({
      filePath: "docs/sky.md",
      startChar: 56,
      endChar: 89,
    });
    expect(report.citations[2]?.source.location.nodeLocation).toEqual({ page: 3 });
    expect(report.invalid).toEqual([]);
    expect(report.uncited).toEqual([]);
  });

  it("reports invalid markers, uncited sentences and unsupported citations", async () => {
    const { text, report } = await checkCitations({
      text: "Water is wet when the sky is red [2][7]. Penguins juggle flaming torches [1]. Nobody knows why.",
      sources,
    });
    expect(text).toBe(
      "Water is wet when the sky is red [2]. Penguins juggle flaming torches [1]. Nobody knows why.",
    );
    expect(report.invalid.map((item) => item.numbers)).toEqual([[7]]);
    expect(report.unsupported.map((citation) => citation.sentence)).toEqual([
      "Penguins juggle flaming torches [1].",
    ]);
    expect(report.uncited.map((item) => item.sentence)).toEqual(["Nobody knows why."]);
  });

  it("adds a cosine score with an embedModel, which can support a sentence the lexical share misses", async () => {
    const calls: string[][] = [];
    const embedModel = {
      id: "fixed",
      getTextEmbeddings: async (texts: string[]) => {
        calls.push(texts);
        return texts.map((text) => (text.includes("Penguins") || text.includes("sky") ? [1, 0] : [0, 1]));
      },
      getQueryEmbedding: async () => [1, 0],
    };
    const { report } = await checkCitations({
      text: "Penguins juggle flaming torches [1].",
      sources,
      embedModel,
    });
    expect(calls).toHaveLength(1);
    expect(report.citations[0]?.support).toMatchObject({ cosine: 1, supported: true });
    expect(report.citations[0]?.support.lexical).toBeLessThan(0.5);
    const strict = await checkCitations({
      text: "Penguins juggle flaming torches [1].",
      sources,
      embedModel,
      cosineThreshold: 1,
    });
    expect(strict.report.unsupported).toHaveLength(0);
    const noCosine = await checkCitations({ text: "Tokyo bridges [1].", sources, embedModel });
    expect(noCosine.report.unsupported).toHaveLength(1);
  });

  it("rejects sources that are not numbered 1…n", async () => {
    await expect(checkCitations({ text: "x", sources: [sources[1] as never] })).rejects.toThrow(
      /sources\[0\]\.number/,
    );
  });
});

describe("lexicalSupport", () => {
  it("is the share of the sentence's content terms found in the source, stop words aside", () => {
    expect(
      lexicalSupport({ sentence: "The water is wet", source: "Water is wet when the sky is red." }),
    ).toBe(1);
    expect(lexicalSupport({ sentence: "wet penguins", source: "Water is wet." })).toBe(0.5);
    expect(
      lexicalSupport({ sentence: "call retryDelay()", source: "const retryDelay = 5;" }),
    ).toBeGreaterThan(0);
  });
});
