import { describe, expect, it } from "vitest";
import { qa } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";
import { answeringFile, quoteAdmission } from "./quote-admission.js";

const passage = (file: string, text: string, score: number, section = -1, rank = 0, fileWeight = 1) => ({
  file,
  text,
  heading: "",
  score,
  rank,
  fileWeight,
  source: 1,
  section,
});

describe("quoteAdmission", () => {
  it("leaves out a passage scoring under a fifth of the best one", () => {
    const best = passage("a", "Dotfiles are denied with a 403.", 10);
    const weak = passage("a", "A dotfile begins with a dot.", 1.9);
    const fair = passage("a", "The default ignores dotfiles.", 2.1);
    const admission = quoteAdmission([best, weak, fair], "dotfiles denied");
    expect([admission.admits(best), admission.admits(weak), admission.admits(fair)]).toEqual([
      true,
      false,
      true,
    ]);
  });

  it("lets a passage under the floor in beside a quote of its section, and a quote of the answer so far", () => {
    const sentence = passage("a", "The maximum time in milliseconds a plugin may take to load.", 10, 3);
    const value = passage("a", "+ Default: `10000`", 1, 3);
    const admission = quoteAdmission([sentence, value], "plugin load milliseconds");
    expect(admission.admits(value)).toBe(false);
    admission.quoted(sentence);
    expect(admission.admits(value)).toBe(true);
    expect(admission.admits({ ...value, section: -1, source: 0 })).toBe(true);
  });

  it("quotes one file: another file's passage stays out, even one adding to the answer", () => {
    const first = passage("a", "Set deny to send a 403 for any request for a dotfile.", 10);
    const copy = passage("b", "Set deny to send a 403 for a request for a dotfile.", 9, -1, 1);
    const more = passage("b", "Serve-static calls next() instead when fallthrough is on.", 8, -1, 1);
    const sameFile = passage("a", "Set deny to send a 403 for any dotfile request.", 7);
    const admission = quoteAdmission([first, copy, more, sameFile], "dotfile request deny");
    expect([first, copy, more, sameFile].map((p) => admission.admits(p))).toEqual([true, false, false, true]);
    expect(admission.admits({ ...more, source: 0 })).toBe(true);
  });

  it("treats a context whose chunks do not say their file as one file", () => {
    const admission = quoteAdmission([passage("", "Alpha beta gamma.", 5)], "alpha");
    expect(admission.admits(passage("", "Alpha beta gamma delta.", 4))).toBe(true);
  });
});

describe("answeringFile", () => {
  const query = "How many milliseconds may a plugin take to load before ready fails?";
  const guide = [
    passage("guide", "One of your plugins may fail during startup.", 10, -1, 0, 0.9),
    passage("guide", "A plugin may take options.", 9, -1, 0, 0.9),
  ];
  const reference = (fileWeight: number) =>
    passage("reference", "The time in milliseconds in which a plugin may load.", 8, -1, 1, fileWeight);

  it("is the file of the passage holding the query's rare words when the query concerns that file as much", () => {
    expect(answeringFile([...guide, reference(1)], query)).toBe("reference");
  });

  it("stays the top-ranked file when the query concerns that file more, or no passage holds more of the query", () => {
    expect(answeringFile([...guide, reference(0.8)], query)).toBe("guide");
    const plain = passage("reference", "A plugin may load.", 8, -1, 1, 1);
    expect(answeringFile([...guide, plain], query)).toBe("guide");
    expect(answeringFile([{ ...reference(1), source: 0 }], query)).toBeUndefined();
  });

  it("counts a passage's heading as its words", () => {
    const headed = {
      ...passage("reference", "Default: `10000`.", 8, -1, 1, 1),
      heading: "pluginTimeout: the milliseconds a plugin may take to load",
    };
    expect(answeringFile([...guide, headed], query)).toBe("reference");
  });
});

describe("ExtractiveLLM and the file that answers", () => {
  // Fails on the answerer before the one-file rule: it quoted the top-ranked guide's sentences about plugins failing
  // (and cited them) before the reference's sentence with the answer.
  it("quotes the reference that names the query's rare word, not the top-ranked guide sharing its common words", async () => {
    const context = [
      "file_path: fastify/docs/Guides/Plugins-Guide.md\n\nOne of your plugins may fail during startup. Maybe you expect it and have your own logic for that case. The `after` API is what you need.",
      "file_path: fastify/docs/Reference/Server.md\n\n### pluginTimeout\n\nThe maximum amount of time in milliseconds in which a plugin can load. If not, ready will complete with an error.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 4 }).complete(
      "",
      qa("How many milliseconds may a fastify plugin take to load before ready fails?", context),
    );
    expect(text).toContain("The maximum amount of time in milliseconds in which a plugin can load.");
    expect(text).not.toContain("One of your plugins may fail during startup.");
  });
});

describe("ExtractiveLLM and repeated text of another file", () => {
  // Fails on the answerer before quoteAdmission: it quoted serve-static's copy of the sentence too (and cited it).
  it("does not quote a lower-ranked file's copy of a passage it already quotes", async () => {
    const context = [
      "file_path: send/README.md\n\n- `'deny'` Send a 403 for any request for a dotfile.\n\nSet how dotfiles are treated when encountered.",
      "file_path: serve-static/README.md\n\nSet how dotfiles are treated.\n\n- `'deny'` Deny a request for a dotfile and 403/`next()`.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 4 }).complete(
      "",
      qa("What happens to a request for a dotfile when dotfiles are set to deny?", context),
    );
    expect(text).toContain("Send a 403 for any request for a dotfile.");
    expect(text).not.toContain("Deny a request for a dotfile");
    expect(text).not.toContain("Set how dotfiles are treated.");
  });
});
