import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answerSentences } from "./answer-sentences.js";
import { parseCitationMarkers } from "./citation-markers.js";
import { CitationTextCleaner, cleanCitationText } from "./citation-text-cleaner.js";

describe("parseCitationMarkers", () => {
  it("reads single, list and range markers with their offsets", () => {
    const text = "Wet when red [2], in the evening [1, 3]; see [2-4] and [5–6].";
    const markers = parseCitationMarkers(text);
    expect(markers.map((marker) => [marker.text, marker.numbers])).toEqual([
      ["[2]", [2]],
      ["[1, 3]", [1, 3]],
      ["[2-4]", [2, 3, 4]],
      ["[5–6]", [5, 6]],
    ]);
    for (const marker of markers) expect(text.slice(marker.start, marker.end)).toBe(marker.text);
  });

  it("ignores brackets that are not markers", () => {
    expect(parseCitationMarkers("an array [a] or [1.5] or [] or [x, 2]")).toEqual([]);
  });

  it("keeps only the ends of a huge range", () => {
    expect(parseCitationMarkers("[1-99999]")[0]?.numbers).toEqual([1, 99999]);
  });
});

describe("CitationTextCleaner", () => {
  it("removes markers naming no source, with the space before them, and reports them", () => {
    const { text, invalid } = cleanCitationText({
      text: "Wet when red [2], at night [9]. Also [1, 7] here.",
      sourceCount: 2,
    });
    expect(text).toBe("Wet when red [2], at night. Also [1] here.");
    expect(invalid.map((item) => [item.marker, item.numbers])).toEqual([
      ["[9]", [9]],
      ["[1, 7]", [7]],
    ]);
    expect(text.slice(invalid[1]?.offset, (invalid[1]?.offset ?? 0) + 3)).toBe("[1]");
  });

  it("treats [0] as invalid (sources are numbered from 1)", () => {
    expect(cleanCitationText({ text: "A [0].", sourceCount: 3 }).text).toBe("A.");
  });

  it("holds back a marker split across deltas", () => {
    const cleaner = new CitationTextCleaner({ sourceCount: 12 });
    expect(cleaner.push("Wet [1")).toBe("Wet");
    expect(cleaner.push("2] and [1")).toBe(" [12] and");
    expect(cleaner.push("3] done")).toBe(" done");
    expect(cleaner.end()).toBe("");
    expect(cleaner.invalid.map((item) => item.marker)).toEqual(["[13]"]);
  });

  it("removes a marker formed by joining brackets around a removed one", () => {
    expect(cleanCitationText({ text: "A [2[3]].", sourceCount: 0 }).text).toBe("A.");
  });

  it("gives up on a long bracket and shows it as text", () => {
    const text = `[1${", 1".repeat(40)}] and [abc]`;
    expect(cleanCitationText({ text, sourceCount: 1 }).text).toBe(text);
  });

  it("gives the same text and reports however the answer is cut into deltas", () => {
    const piece = fc.constantFrom(
      "Water",
      " is",
      " wet",
      " [",
      "1",
      "2",
      "]",
      ", ",
      "-",
      "–",
      "[3]",
      "[9, 1]",
      ". ",
      "\n",
      "  ",
      "水",
      "[",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 0, max: 5 }),
        (parts, cuts, sourceCount) => {
          const text = parts.join("");
          const whole = new CitationTextCleaner({ sourceCount });
          const wholeText = whole.push(text) + whole.end();
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const cleaner = new CitationTextCleaner({ sourceCount });
          let shown = "";
          let previous = 0;
          for (const point of [...points, text.length]) {
            shown += cleaner.push(text.slice(previous, point));
            previous = point;
          }
          shown += cleaner.end();
          expect(shown).toBe(wholeText);
          expect(cleaner.invalid).toEqual(whole.invalid);
          for (const marker of parseCitationMarkers(cleanCitationText({ text, sourceCount }).text))
            for (const number of marker.numbers) expect(number >= 1 && number <= sourceCount).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("answerSentences", () => {
  it("gives markers after a full stop to the sentence before", () => {
    const sentences = answerSentences("Water is wet. [2] The sky is red [1]. 水は濡れている。次");
    expect(sentences.map((sentence) => sentence.text)).toEqual([
      "Water is wet. [2]",
      "The sky is red [1].",
      "水は濡れている。",
      "次",
    ]);
  });

  it("reads hard-wrapped lines as one sentence, and a list item or blank line as a new one", () => {
    const text =
      "A mode decides how\nmany calls are made. [1]\n- `generation` sends the query [2]\n- `no_text` calls nothing\n\nDone";
    expect(answerSentences(text).map((sentence) => sentence.text)).toEqual([
      "A mode decides how\nmany calls are made. [1]",
      "- `generation` sends the query [2]",
      "- `no_text` calls nothing",
      "Done",
    ]);
  });

  it("keeps a fenced code block as one sentence", () => {
    const text = "Use it:\n```ts\nconst a = 1;\nconst b = 2;\n``` [2]\nDone [1].";
    expect(answerSentences(text).map((sentence) => sentence.text)).toEqual([
      "Use it:",
      "```ts\nconst a = 1;\nconst b = 2;\n``` [2]",
      "Done [1].",
    ]);
  });
});
