// Node texts cut from the real-document corpus (lib/corpus.mjs, "large": Markdown docs of pinned npm
// packages, then commented TypeScript declarations), so figures see real vocabulary: ~40k distinct
// pre-tokenizer pieces per 1M tokens, where the synthetic fixture has a few hundred.
import { readFileSync } from "node:fs";
import { ensureCorpus } from "./corpus.mjs";
import { cl100kCount } from "./tokens.mjs";

const promises = new Map();

/** The small corpus (Markdown docs only) holds ~600k tokens; larger requests use the large one. */
const corpusFor = (tokens) => (tokens <= 400_000 ? "small" : "large");

/** The corpus as `{ text, tokens }` lines (cl100k, each line with its "\n"), in corpus order. */
function corpusLines(name = "large") {
  if (!promises.has(name)) promises.set(name, load(name));
  return promises.get(name);
}

async function load(name) {
  const corpus = await ensureCorpus(name);
  const lines = [];
  for (const file of corpus.files) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      // Lines of minified code or base64 are not prose; skip the rare very long ones.
      if (line.length > 2000) continue;
      const text = `${line}\n`;
      lines.push({ text, tokens: cl100kCount(text) });
    }
  }
  return { corpus, lines };
}

/**
 * `count` node texts of about `tokens` cl100k tokens each (whole lines, so within a line of the target),
 * taken in corpus order. Throws when the corpus holds fewer tokens than asked.
 */
export async function realNodeTexts({ count, tokens }) {
  const name = corpusFor(count * tokens);
  const { lines } = await corpusLines(name);
  const texts = [];
  let current = "";
  let currentTokens = 0;
  for (const line of lines) {
    if (texts.length >= count) break;
    current += line.text;
    currentTokens += line.tokens;
    if (currentTokens >= tokens) {
      texts.push(current);
      current = "";
      currentTokens = 0;
    }
  }
  if (texts.length < count) {
    throw new Error(
      `The ${CORPUS} corpus holds only ${texts.length} nodes of ${tokens} tokens; asked for ${count}.`,
    );
  }
  return texts;
}

/** Names and versions of the packages the corpus for `tokens` tokens was built from, for the notes. */
export async function realCorpusSources(tokens = Number.POSITIVE_INFINITY) {
  const { corpus } = await corpusLines(corpusFor(tokens));
  return corpus.sources.map((source) => source.packages.join(", ")).join("; ");
}
