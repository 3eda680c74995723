import { describe, expect, it } from "vitest";
import { qa } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";
import { splitPassages } from "./passages.js";
import { termInReach } from "./quote-widening.js";

// Definition items read as text (a man page's `.TP` items): a paragraph that opens with the option or key it defines.

describe("splitPassages and definition terms", () => {
  it("finds the options or configuration key a paragraph opens with, for each of its sentences", () => {
    const text = [
      "## OPTIONS",
      "-n, --line-number Prefix the line number to matching lines.",
      "-A <num>, --after-context <num> Show <num> trailing lines. Place -- between groups.",
      "gc.pruneExpire When git gc is run, it prunes. Override it here.",
      "Plain prose names no term. Nor does this.",
    ].join("\n\n");
    const terms = splitPassages(text).map((passage) => [passage.text, passage.term]);
    expect(terms).toEqual([
      ["-n, --line-number Prefix the line number to matching lines.", "-n, --line-number"],
      ["-A <num>, --after-context <num> Show <num> trailing lines.", "-A <num>, --after-context <num>"],
      ["Place -- between groups.", "-A <num>, --after-context <num>"],
      ["gc.pruneExpire When git gc is run, it prunes.", "gc.pruneExpire"],
      ["Override it here.", "gc.pruneExpire"],
      ["Plain prose names no term.", ""],
      ["Nor does this.", ""],
    ]);
  });
});

describe("ExtractiveLLM and definition items", () => {
  // Fails on the answerer before definition terms: it quoted the third sentence without the one naming the key.
  it("quotes a later sentence of an item with the sentence that names its term", async () => {
    const context = [
      "## CONFIGURATION",
      "gc.pruneExpire When git gc is run, it will call prune --expire 2.weeks.ago. Override the grace period with this config variable. The value now may be used to disable this grace period and always prune unreachable objects immediately. This feature helps prevent corruption when git gc runs concurrently with another process.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 1 }).complete(
      "",
      qa("How do I disable the grace period so that unreachable objects are pruned immediately?", context),
    );
    expect(text).toContain("always prune unreachable objects immediately.");
    expect(text).toContain("gc.pruneExpire When git gc is run");
  });
});

// Definition items whose term is a paragraph of its own (an HTML `<dt>`, a reStructuredText signature), as the HTML,
// reStructuredText and DOCX readers write them: the term on one line, a blank line, then what it defines.

describe("splitPassages and term paragraphs", () => {
  const items = (text: string) =>
    splitPassages(text).map((passage) => [passage.text, passage.term, passage.block]);

  it("makes a term paragraph and the prose after it one item, each passage carrying the term", () => {
    const text = [
      "--depth <depth>",
      "Create a shallow clone. Implies --single-branch.",
      "isleap(year)",
      "Returns True if year is a leap year.",
      "\\fontencoding{encoding}",
      "Selects the encoding.",
      "Plain prose stays on its own.",
    ].join("\n\n");
    expect(items(text)).toEqual([
      ["--depth <depth>", "--depth <depth>", 0],
      ["Create a shallow clone.", "--depth <depth>", 0],
      ["Implies --single-branch.", "--depth <depth>", 0],
      ["isleap(year)", "isleap(year)", 1],
      ["Returns True if year is a leap year.", "isleap(year)", 1],
      ["\\fontencoding{encoding}", "\\fontencoding{encoding}", 2],
      ["Selects the encoding.", "\\fontencoding{encoding}", 2],
      ["Plain prose stays on its own.", "", 3],
    ]);
  });

  it("takes terms in a row as one passage, and their description with them", () => {
    const run = "descr.__get__(self, obj, type=None) -> value\n\ndescr.__set__(self, obj, value) -> None";
    expect(items(`${run}\n\nDefine any of these methods.`)).toEqual([
      [run, run, 0],
      ["Define any of these methods.", run, 0],
    ]);
  });

  it("leaves a term alone when a heading, code or a list follows it, and prose that only looks short", () => {
    const text = [
      "--verbose",
      "## Next",
      "Prose under the heading.",
      "parse(text)",
      "```js\nparse('a')\n```",
      "--quiet",
      "- a list item",
      "Note:",
      "Not a term, so this is no description.",
    ].join("\n\n");
    expect(items(text)).toEqual([
      ["--verbose", "--verbose", 0],
      ["Prose under the heading.", "", 1],
      ["parse(text)", "parse(text)", 2],
      ["```js\nparse('a')\n```", "", 3],
      ["--quiet", "--quiet", 4],
      ["- a list item", "", 5],
      ["Note:", "", 6],
      ["Not a term, so this is no description.", "", 7],
    ]);
  });

  it("takes a code block of one term line as a term (a `<dt>` holding a `<code>` element)", () => {
    const fenced = "```\n--num-callers=<number> [default: 12]\n```";
    expect(
      items(`${fenced}\n\nSpecifies the maximum number of entries.\n\n\`\`\`\nrun(a)\nrun(b)\n\`\`\``),
    ).toEqual([
      [fenced, fenced, 0],
      ["Specifies the maximum number of entries.", fenced, 0],
      ["```\nrun(a)\nrun(b)\n```", "", 1],
    ]);
  });

  it("keeps a long list item's term line with the line after it when the item is cut into runs of lines", () => {
    // curl's man page as the chunk renders it: the option on the item's first line, one long line of text after.
    const description = `  (HTTP) If the server reports that the page has moved, curl redoes the request. ${"More. ".repeat(100)}`;
    const item = `- -L, --location\n${description.trimEnd()}\n  Second line.`;
    const pieces = splitPassages(item).map((passage) => passage.text);
    expect(pieces[0]?.startsWith("- -L, --location\n  (HTTP) If the server reports")).toBe(true);
    expect(pieces).toHaveLength(2);
  });

  it("keeps a paragraph's own opening term over the term paragraph before it", () => {
    expect(items("--all\n\n-n, --line-number Prefix the line number.")).toEqual([
      ["--all", "--all", 0],
      ["-n, --line-number Prefix the line number.", "-n, --line-number", 0],
    ]);
  });
});

describe("ExtractiveLLM and term paragraphs", () => {
  // Fails on the answerer before term paragraphs: it quoted the description without the option it describes.
  it("quotes the term paragraph with the sentence of its description it answers from", async () => {
    const context = [
      "## OPTIONS",
      "--bare",
      "Make a bare Git repository. That is, instead of creating a working tree, put the administrative files directly in the directory.",
      "--depth <depth>",
      "Create a shallow clone with a history truncated to the specified number of commits. Implies --single-branch unless --no-single-branch is given.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 1 }).complete(
      "",
      qa("How do I clone a repository with only a truncated history of recent commits?", context),
    );
    expect(text).toContain("Create a shallow clone with a history truncated");
    expect(text).toContain("--depth <depth>");
    expect(text).not.toContain("--bare");
  });

  it("keeps the lines of a term written as code when it quotes it after other text", async () => {
    const filler =
      "Suppression files list errors to hide, one entry each, with mangled function names. ".repeat(6);
    const context = [
      "## Basic Options",
      "Valgrind always traces the child of a fork, since fork makes an identical copy of the process.",
      filler.trim(),
      "```\n--trace-children=<yes|no> [default: no]\n```",
      "When enabled, Valgrind will trace into child processes initiated via the exec system call.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 2 }).complete(
      "",
      qa("How do I make valgrind trace into child processes started by exec?", context),
    );
    // The fence opens a line of its own (not "…the process. ```"), so a Markdown view shows the option as code.
    expect(text).toContain(
      "the process.\n\n```\n--trace-children=<yes|no> [default: no]\n```\n\nWhen enabled",
    );
  });
});

describe("ExtractiveLLM and a term chosen on its own", () => {
  // Fails before: the signature scored best and was quoted alone, without the sentence saying what it does.
  it("quotes a term with the first sentence of what it defines", async () => {
    const filler =
      "Clocks count the time in seconds since the epoch, and each platform keeps its own. ".repeat(7);
    const context = [
      "## Functions",
      filler.trim(),
      "time.time_ns() → int",
      "Like time(), at a finer resolution.",
    ];
    const { text } = await new ExtractiveLLM({ maxSentences: 1 }).complete(
      "",
      qa("Which function gives the time in nanoseconds as an int?", context.join("\n\n")),
    );
    expect(text).toBe("time.time_ns() → int\n\nLike time(), at a finer resolution.");
  });
});

describe("termInReach", () => {
  it("scores a sentence with its item's term only while a quote of it can reach back to the term", () => {
    const filler = "Some clients and networks may consider the server to be hung and give up on it. ".repeat(
      5,
    );
    const text = [
      "uploadpack.keepAlive",
      `When upload-pack has started pack-objects, there may be a quiet period. ${filler}The default is 5 seconds.`,
      "Plain prose has no term.",
    ].join("\n\n");
    const candidates = splitPassages(text).map((passage) => ({ ...passage, source: 1, whole: false }));
    const inReach = termInReach(candidates);
    const reached = candidates.map((candidate) => [candidate.text.slice(0, 24), inReach(candidate)]);
    expect(reached[0]).toEqual(["uploadpack.keepAlive", true]);
    expect(reached[1]).toEqual(["When upload-pack has sta", true]);
    // More than 400 characters after the term: quoted alone, so scored alone.
    expect(reached.at(-2)).toEqual(["The default is 5 seconds", false]);
    expect(reached.at(-1)).toEqual(["Plain prose has no term.", false]);
  });
});
