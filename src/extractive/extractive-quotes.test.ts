import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractAnswer } from "./extractive-answer.js";
import { qa } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";
import { splitPassages } from "./passages.js";

const settings = {
  embedModel: undefined,
  maxSentences: 3,
  minScore: 0,
  satisfiedThreshold: 0.5,
  splitSentences: undefined,
  signal: undefined,
};

// Pieces that break naive sentence handling: URLs with ? and &, ! and ? inside tokens, CJK, code, tables.
const PIECES = [
  "See https://github.com/org/repo/commits?author=alice&since=2024 for the list.",
  "Wow!nice is one token. Is it? Yes!",
  "Run `npm i --save-dev vitest@^2.1.0` then `npx vitest --run`.",
  "巴黎是法国的首都。东京是日本的首都！",
  "```js\nconst x = a?.b ?? c; // why?not\nif (x!) run();\n```",
  "| option | default |\n|---|---|\n| `timeout` | `5000` |",
  "- `--no-color`: disable colors.\n- `-v, --verbose`: log more.",
  "## Options",
  "e.g. the U.S. default is 3.5.0-beta.1 (not 3.5).",
  "   indented   text   with    spaces  ",
];
const QUERIES = [
  "commits author",
  "token nice",
  "vitest run",
  "法国首都",
  "why not run",
  "timeout default",
  "verbose colors",
  "default beta",
  "spaces",
];

describe("extractive quotes are verbatim", () => {
  it("quotes only slices of the sources, whatever the text (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 40 })), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.constantFrom("\n\n", "\n", " ", ""),
        fc.constantFrom(...QUERIES),
        fc.option(fc.constantFrom(...PIECES), { nil: undefined }),
        async (pieces, separator, query, existingAnswer) => {
          const context = pieces.join(separator);
          const request = { query, context, ...(existingAnswer === undefined ? {} : { existingAnswer }) };
          const { sentences } = await extractAnswer(request, settings);
          for (const quote of sentences) {
            expect(context.includes(quote) || existingAnswer?.includes(quote)).toBe(true);
          }
          // The answer is those quotes, in order, with at most a blank line (or a space) between them.
          const { text } = await new ExtractiveLLM({
            maxOutputTokens: 10_000,
            maxSentences: settings.maxSentences,
          }).complete("", qa(query, context));
          if (existingAnswer === undefined) {
            let position = 0;
            for (const quote of sentences) {
              const at = text.indexOf(quote, position);
              expect(at - position).toBeGreaterThanOrEqual(0);
              expect(at - position).toBeLessThanOrEqual(position === 0 ? 0 : 2);
              position = at + quote.length;
            }
            expect(position).toBe(text.length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps a URL with ?author= intact (it became `commits? author=`)", async () => {
    const context =
      "Release notes are at https://github.com/org/repo/commits?author=alice and in the changelog.";
    const { text } = await new ExtractiveLLM().complete(
      "",
      qa("Where are the commits by author alice?", context),
    );
    expect(text).toBe(context);
  });

  it("quotes a whole code block, a list item and a table row, not only prose", async () => {
    const context = [
      "## Install",
      "Install the package first.",
      "```sh\nnpm install --save zebra-cli\n```",
      "## Options",
      "- `--stripes <n>`: how many stripes to draw.\n  Defaults to 12.",
      "- `--color`: draw in colour.",
      "| option | default |\n|---|---|\n| `maxStripes` | `40` |",
    ].join("\n\n");
    const llm = new ExtractiveLLM({ maxSentences: 1 });
    expect((await llm.complete("", qa("npm install zebra-cli", context))).text).toBe(
      "```sh\nnpm install --save zebra-cli\n```",
    );
    expect((await llm.complete("", qa("How many stripes by default?", context))).text).toBe(
      "- `--stripes <n>`: how many stripes to draw.\n  Defaults to 12.",
    );
    expect((await llm.complete("", qa("maxStripes default", context))).text).toBe("| `maxStripes` | `40` |");
  });

  it("scores a passage with its heading, so an option's Default line is quoted with its description", async () => {
    const context = [
      "### `keepAliveTimeout`",
      "+ Default: `72000` (72 seconds)",
      "Defines the server keep-alive timeout in milliseconds.",
      "### `bodyLimit`",
      "+ Default: `1048576` (1MiB)",
      "Defines the maximum payload, in bytes.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 2 }).complete(
      "",
      qa("What is the default keep-alive timeout?", context),
    );
    expect(text).toBe(
      "+ Default: `72000` (72 seconds)\n\nDefines the server keep-alive timeout in milliseconds.",
    );
  });
});

describe("splitPassages", () => {
  it("never quotes a `Source N:` label that citation mode puts before each piece", async () => {
    // As CitationQueryEngine numbers its pieces: the label line, then the piece's text (no blank line between).
    const context = [
      "Source 1:\nAllows patch-level changes if a minor version is specified.\n",
      "Source 2:\n\n```js\nprogram.version('0.0.1');\n```\n",
      "Source 3:\nAllows minor-level changes if not. The version flags are -V and --version.\n",
      // A piece cut inside a code block: the next label still ends it.
      "Source 4:\n```js\nprogram.version('1.0.0');\n",
      "Source 5:\nThe version flag prints the version.\n",
    ].join("\n");
    const passages = splitPassages(context);
    expect(passages.map((passage) => passage.text)).toEqual([
      "Allows patch-level changes if a minor version is specified.",
      "```js\nprogram.version('0.0.1');\n```",
      "Allows minor-level changes if not.",
      "The version flags are -V and --version.",
      "```js\nprogram.version('1.0.0');",
      "The version flag prints the version.",
    ]);
    const { text } = await new ExtractiveLLM({ maxSentences: 5 }).complete(
      "",
      qa("Which changes and version flags are allowed? program.version", context),
    );
    expect(text).toContain("version");
    expect(text).not.toMatch(/Source \d+:/);
  });

  it("quotes nothing from a lone fence line left by a chunk cut inside a code block", () => {
    const cut = "const x = 1;\n```\n\nSome prose.\n\n```ts";
    expect(splitPassages(cut).map((passage) => passage.text)).toEqual(["const x = 1;", "Some prose."]);
  });

  it("returns verbatim slices with their heading, and does not split a sentence inside a token", () => {
    const text = "# Title\n\nGo to a.com/x?y=1 now. Done!\n\n```\ncode?\n```\n\n| a | b |";
    const passages = splitPassages(text);
    for (const passage of passages) expect(text.slice(passage.start, passage.end)).toBe(passage.text);
    expect(passages.map((passage) => passage.text)).toEqual([
      "Go to a.com/x?y=1 now.",
      "Done!",
      "```\ncode?\n```",
      "| a | b |",
    ]);
    expect(passages.every((passage) => passage.heading === "Title")).toBe(true);
  });
});
