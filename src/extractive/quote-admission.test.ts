import { describe, expect, it } from "vitest";
import { qa } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";
import { quoteAdmission } from "./quote-admission.js";

const passage = (file: string, text: string, score: number, section = -1) => ({
  file,
  text,
  score,
  source: 1,
  section,
});

describe("quoteAdmission", () => {
  it("leaves out a passage scoring under a fifth of the best one", () => {
    const best = passage("a", "Dotfiles are denied with a 403.", 10);
    const weak = passage("a", "A dotfile begins with a dot.", 1.9);
    const fair = passage("a", "The default ignores dotfiles.", 2.1);
    const admission = quoteAdmission([best, weak, fair]);
    expect([admission.admits(best), admission.admits(weak), admission.admits(fair)]).toEqual([
      true,
      false,
      true,
    ]);
  });

  it("lets a passage under the floor in beside a quote of its section, and a quote of the answer so far", () => {
    const sentence = passage("a", "The maximum time in milliseconds a plugin may take to load.", 10, 3);
    const value = passage("a", "+ Default: `10000`", 1, 3);
    const admission = quoteAdmission([sentence, value]);
    expect(admission.admits(value)).toBe(false);
    admission.quoted(sentence);
    expect(admission.admits(value)).toBe(true);
    expect(admission.admits({ ...value, section: -1, source: 0 })).toBe(true);
  });

  it("leaves out a new file's passage that repeats what the answer says, not one that adds to it", () => {
    const first = passage("a", "Set deny to send a 403 for any request for a dotfile.", 10);
    const copy = passage("b", "Set deny to send a 403 for a request for a dotfile.", 9);
    const more = passage("b", "Serve-static calls next() instead when fallthrough is on.", 8);
    const sameFile = passage("a", "Set deny to send a 403 for any dotfile request.", 7);
    const admission = quoteAdmission([first, copy, more, sameFile]);
    expect(admission.admits(first)).toBe(true);
    admission.quoted(first);
    expect([admission.admits(copy), admission.admits(more), admission.admits(sameFile)]).toEqual([
      false,
      true,
      true,
    ]);
  });

  it("never holds back a passage whose file is unknown", () => {
    const admission = quoteAdmission([passage("", "Alpha beta gamma.", 5)]);
    admission.quoted(passage("a", "Alpha beta gamma delta.", 5));
    expect(admission.admits(passage("", "Alpha beta gamma.", 5))).toBe(true);
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
