// The bench's labelled questions (bench/quality/questions.json) and its small corpus, for the tests that check
// `evaluate()` and `ragsynth eval` reproduce the bench's figures.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The bench's small corpus, built by `node bench/lib/corpus.mjs`. */
export const BENCH_CORPUS = join(ROOT, "bench", "corpora", "out", "small");

/** One labelled question: the files that answer it and a phrase a right answer holds. */
export interface BenchQuestion {
  id: string;
  question: string;
  files: string[];
  phrase: string;
}

/** The fixed subset both parity tests use: every fourth question (15 of 58). */
export function benchQuestionSubset(): BenchQuestion[] {
  const all = JSON.parse(
    readFileSync(join(ROOT, "bench", "quality", "questions.json"), "utf8"),
  ) as BenchQuestion[];
  return all.filter((_, position) => position % 4 === 0);
}

/** The bench's phrase check: case and whitespace ignored. */
export const holdsPhrase = (text: string, phrase: string) => normalize(text).includes(normalize(phrase));

const normalize = (text: string) => text.toLowerCase().replace(/\s+/g, " ");
