import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import type { Retriever } from "../retrieval/retriever.js";
import { TextNode } from "../schema/text-node.js";
import { parseCitationMarkers } from "./citation-markers.js";
import { createCitationNodes } from "./citation-nodes.js";
import { CitationQueryEngine } from "./citation-query-engine.js";
import { citeVerbatimQuotes, verbatimQuoteSpans } from "./cite-verbatim-quotes.js";

const PROSE = "The sky is red in the evening. Water is wet when the sky is red. Rain soaks the ground.";
const CJK = "東京は日本の首都です。大阪は食べ物で有名です。京都には古い寺がたくさんあります。";
const CODE =
  "```ts\nconst retryDelay = (attempt: number) => 2 ** attempt * 100;\nexport { retryDelay };\n```";
const KOREAN = "서울은 한국의 수도입니다. 부산은 항구 도시입니다.";

describe("verbatimQuoteSpans", () => {
  it("cites each quote with the piece it was copied from", () => {
    const { sources } = createCitationNodes({
      nodes: [PROSE, CJK].map((text) => ({ node: new TextNode({ text }) })),
      splitter: { splitText: (text) => [text] },
    });
    expect(
      citeVerbatimQuotes({ answer: "Water is wet when the sky is red. 東京は日本の首都です。", sources }),
    ).toBe("Water is wet when the sky is red. [1] 東京は日本の首都です。 [2]");
    expect(
      citeVerbatimQuotes({ answer: "Source 2:\n東京は日本の首都です。 Penguins!\nSource 1:", sources }),
    ).toBe("東京は日本の首都です。 [2] Penguins!");
  });

  it("puts the marker after a code block on a line of its own, so the block stays closed", () => {
    const intro = "To compute the delay, use:";
    const { sources } = createCitationNodes({
      nodes: [`${intro}\n\n${CODE}\n\nThe end.`].map((text) => ({ node: new TextNode({ text }) })),
      splitter: { splitText: (text) => [text] },
    });
    const cited = citeVerbatimQuotes({ answer: `${intro}\n\n${CODE}`, sources });
    expect(cited).toBe(`${intro} [1]\n\n${CODE}\n[1]`);
    // Read back, the block's marker cites it: both markers, each after its own sentence.
    expect(parseCitationMarkers(cited).map((marker) => marker.numbers)).toEqual([[1], [1]]);
  });

  it("every cited span is a verbatim substring of the source it cites (prose, CJK, code)", () => {
    const texts = fc.oneof(
      fc.constantFrom(PROSE, CJK, CODE, KOREAN),
      fc.string({
        unit: fc.constantFrom("a", "b", " ", "水", "字", "{", "}", "\n", "=", "😀", "é"),
        minLength: 1,
        maxLength: 60,
      }),
    );
    fc.assert(
      fc.property(
        fc.array(texts, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 6 }),
        (pieces, picks) => {
          const { sources } = createCitationNodes({
            nodes: pieces.map((text) => ({ node: new TextNode({ text }) })),
            splitter: { splitText: (text) => [text] },
          });
          const quotes = picks.map(([which, from, length]) => {
            const text = sources[which % sources.length]?.text ?? "";
            const start = from % (text.length + 1);
            return text.slice(start, start + (length % 40)).trim();
          });
          const answer = quotes.join(" ");
          const spans = verbatimQuoteSpans({ answer, sources });
          expect(spans.map((span) => span.text).join("")).toBe(answer);
          for (const span of spans) if (span.source) expect(span.source.text).toContain(span.text);
          // A quote of four characters or more with a letter or digit is cited.
          for (const quote of quotes)
            if (quote.length >= 4 && /[\p{L}\p{N}]/u.test(quote) && !quote.includes(" "))
              expect(spans.some((span) => span.source && span.text.includes(quote))).toBe(true);
        },
      ),
      {
        // Found once in ~2,000 runs: the first quote's match ran on into the second's first characters
        // (`é 😀` of `é 😀a`), leaving `=aaaa…` too short to cite.
        examples: [
          [
            ["é 😀a", "aa😀=aaaaéa"],
            [
              [20583709, 532375905, 1],
              [510787035, 1513960430, 49448164],
              [0, 0, 0],
            ],
          ],
        ],
      },
    );
  });
});

describe("CitationQueryEngine with the offline ExtractiveLLM", () => {
  it("every quote it cites is verbatim in the source it cites", async () => {
    const documents = [PROSE, CJK, CODE, KOREAN];
    const questions = [
      "When is water wet?",
      "日本の首都は？",
      "What does retryDelay return?",
      "한국의 수도는?",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(documents, { minLength: 2 }),
        fc.constantFrom(...questions),
        async (chosen, query) => {
          const retriever: Retriever = {
            retrieve: async () =>
              chosen.map((text, index) => ({ node: new TextNode({ id: `d${index}`, text }) })),
          };
          const engine = new CitationQueryEngine({
            retriever,
            llm: new ExtractiveLLM(),
            citeVerbatimQuotes: true,
            citationChunkSize: 64,
          });
          const response = await engine.query({ query });
          const { sources } = response.citations;
          let previous = 0;
          for (const marker of parseCitationMarkers(response.response)) {
            const quote = response.response.slice(previous, marker.start).trim();
            previous = marker.end;
            expect(marker.numbers).toHaveLength(1);
            expect(sources[(marker.numbers[0] ?? 0) - 1]?.text).toContain(quote);
          }
          // "Empty Response" is the synthesizer's answer when no passage matched: nothing was quoted.
          if (response.response !== "Empty Response") {
            expect(response.citations.citations.length).toBeGreaterThan(0);
            expect(response.citations.uncited).toEqual([]);
          }
          expect(response.citations.invalid).toEqual([]);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("quotes that hold bracketed numbers themselves", () => {
  it("keeps a quoted [N] as text: only the markers added are citations, nothing is reported invalid", async () => {
    const quoted = "Install it with npm [1] or yarn [7], as the setup guide says.";
    const engine = new CitationQueryEngine({
      retriever: {
        retrieve: async () =>
          [quoted, "Another file about something else entirely."].map((text) => ({
            node: new TextNode({ text }),
          })),
      },
      llm: new ExtractiveLLM(),
      citeVerbatimQuotes: true,
    });
    const response = await engine.query({ query: "How do I install it with npm or yarn?" });
    // The quote is shown verbatim, [1] and [7] included, followed by the one marker that was added.
    expect(response.response).toContain(`${quoted} [1]`);
    const { citations, invalid } = response.citations;
    expect(invalid).toEqual([]);
    expect(citations.map((citation) => [citation.offset, citation.sourceNumber])).toEqual([
      [response.response.indexOf(`${quoted} [1]`) + quoted.length + 1, 1],
    ]);
    // Streaming shows the same text.
    const streaming = await engine.stream({ query: "How do I install it with npm or yarn?" });
    let shown = "";
    for await (const delta of streaming.textStream) shown += delta;
    expect(shown).toBe((await streaming.response).response);
    expect(shown).toBe(response.response);
  });
});

describe("a quote never starts or ends inside a word", () => {
  it("cites no fragment of a token (file_path, body-parser__README.md), but whole words and CJK as before", () => {
    const { sources } = createCitationNodes({
      nodes: ["The file lists each path.", "Use body-parser in express.", "東京は日本の首都です。"].map(
        (text) => ({
          node: new TextNode({ text }),
        }),
      ),
      splitter: { splitText: (text) => [text] },
    });
    // Header lines the answerer copied from node metadata: in no piece as a whole, so not cited at all.
    const withMetadata = createCitationNodes({
      nodes: [
        { node: new TextNode({ text: "The bench reads files.", metadata: { file_path: "bench/a.md" } }) },
      ],
      splitter: { splitText: (text) => [text] },
    }).sources;
    expect(
      citeVerbatimQuotes({ answer: "file_path: bench/a.md\nThe bench reads files.", sources: withMetadata }),
    ).toBe("file_path: bench/a.md\nThe bench reads files. [1]");
    const header = "file_path: docs/body-parser__README.md";
    expect(citeVerbatimQuotes({ answer: header, sources })).toBe(header);
    const answer = `${header}\nUse body-parser in express. 東京は日本`;
    const cited = citeVerbatimQuotes({ answer, sources });
    expect(cited).toBe(`${header}\nUse body-parser in express. [2] 東京は日本 [3]`);
    for (const marker of parseCitationMarkers(cited)) {
      expect(cited[marker.start - 1]).toBe(" ");
      expect(cited.slice(marker.end, marker.end + 1)).toMatch(/^(\s|$)/);
    }
  });
});

describe("a quote that runs past a sentence end into the next quote", () => {
  // Fails on the citer before the sentence seam: `… all IPv4 addresses. The [1] default is …`.
  it("ends at the sentence end when the next sentence matches as far from there", () => {
    const piece =
      "Specifying 0.0.0.0 will listen on all IPv4 addresses. The following table details the values.\n\n" +
      "Be careful with all interfaces.\n\nThe default is to listen on port 0 and host localhost.";
    const { sources } = createCitationNodes({
      nodes: [{ node: new TextNode({ text: piece }) }],
      splitter: { splitText: (text) => [text] },
    });
    const answer =
      "Specifying 0.0.0.0 will listen on all IPv4 addresses. The default is to listen on port 0 and host localhost.";
    expect(citeVerbatimQuotes({ answer, sources })).toBe(
      "Specifying 0.0.0.0 will listen on all IPv4 addresses. [1] The default is to listen on port 0 and host localhost. [1]",
    );
    // A quote of several whole sentences is left as it is.
    expect(citeVerbatimQuotes({ answer: "Be careful with all interfaces. The default is", sources })).toBe(
      "Be careful with all interfaces. [1] The default is [1]",
    );
  });
});
