import { lexicalTerms } from "../analysis/lexical-terms.js";

// Which of the ranked passages an answer may still take, beyond their order: two rules against quoting (and so
// citing) text that does not answer.

// A passage scoring under this share of the best passage's score is not quoted.
const RELATIVE_FLOOR = 0.2;

/** What {@link quoteAdmission} reads of a passage. @internal */
export interface AdmittedPassage {
  text: string;
  /** Its heading path's text ("" when none): its words count as the passage's when finding the answering file. */
  heading: string;
  score: number;
  /** The retrieved file it comes from (its metadata lines), or "" when the context does not say. */
  file: string;
  /** Its file's retrieval rank, best first. */
  rank: number;
  /** How much the query concerns its file (`fileWeights`: 1 for the file matching it best). */
  fileWeight: number;
  /** 0 for the answer so far, 1 for the context. */
  source: number;
  /** Which heading's section of its source it is in; -1 before the first heading. */
  section: number;
}

/**
 * The rules that keep an answer to its evidence, on top of the ranking, for passages of the context:
 * - **relative floor**: a passage scoring under {@link RELATIVE_FLOOR} of the best passage's score answers another
 *   question; it is left out even when places remain (a refine call would otherwise fill them with the new
 *   context's leftovers, a lower-ranked file's sentences that share a word or two with the query);
 * - **one file answers**: only passages of the {@link answeringFile} are quoted. A neighbouring file (a guide that
 *   mentions the option, another package's copy of the README, a changelog, a security policy) often ranks beside or
 *   above the file that answers, sharing the query's common words; quoting it too stitches its sentences into the
 *   answer and cites the wrong file.
 * The answer so far is never held back (it was chosen against its own context), nor a passage of a section already
 * quoted, under the floor (a terse `Default: 10000` line beside the sentence that names the option); a context whose
 * chunks do not say their file is one file. `admits` is asked in ranking order; `quoted` is told each passage taken.
 * @internal
 */
export function quoteAdmission(
  passages: readonly AdmittedPassage[],
  query: string,
): {
  admits(passage: AdmittedPassage): boolean;
  quoted(passage: AdmittedPassage): void;
} {
  // A loop, not Math.max(...scores): a million-token context holds more passages than a call may take arguments.
  let best = 0;
  for (const passage of passages) if (passage.score > best) best = passage.score;
  const floor = RELATIVE_FLOOR * best;
  const answering = answeringFile(passages, query);
  const sections = new Set<string>();
  const sectionOf = (passage: AdmittedPassage) => `${passage.source}:${passage.section}`;
  return {
    admits: (passage) => {
      if (passage.source === 0) return true;
      if (answering !== undefined && passage.file !== answering) return false;
      if (passage.section >= 0 && sections.has(sectionOf(passage))) return true;
      return passage.score >= floor;
    },
    quoted: (passage) => {
      sections.add(sectionOf(passage));
    },
  };
}

/**
 * The retrieved file an answer quotes: the top-ranked one, unless the passage holding the most of the query's
 * terms (its heading's words counted, each term weighted by its rarity among the context's passages,
 * `ln(1 + n / (1 + passages holding it))`) lies in another file that the query concerns at least as much as a whole
 * ({@link AdmittedPassage.fileWeight}). Retrieval ranks chunks by BM25, which a chunk repeating the query's common
 * words wins; the passage that holds its rare words ("milliseconds" of "how many milliseconds may a plugin take to
 * load", a version number) points at the file the answer is in, and the file's own match keeps a passage that
 * happens to gather several common words in a neighbouring file from overruling the ranking. Undefined without a
 * context passage.
 * @internal
 */
export function answeringFile(passages: readonly AdmittedPassage[], query: string): string | undefined {
  const context = passages.filter((passage) => passage.source !== 0);
  let top: AdmittedPassage | undefined;
  for (const passage of context) if (top === undefined || passage.rank < top.rank) top = passage;
  if (top === undefined) return undefined;
  const queryTerms = [...new Set(lexicalTerms(query))];
  const held = context.map((passage) => {
    const terms = new Set(lexicalTerms(`${passage.heading}\n${passage.text}`));
    return queryTerms.filter((term) => terms.has(term));
  });
  const holding = new Map<string, number>();
  for (const terms of held) for (const term of terms) holding.set(term, (holding.get(term) ?? 0) + 1);
  const rarity = (term: string) => Math.log(1 + context.length / (1 + (holding.get(term) ?? 0)));
  let fullest = top;
  let most = -1;
  context.forEach((passage, index) => {
    let covered = 0;
    for (const term of held[index] as string[]) covered += rarity(term);
    if (covered > most || (covered === most && passage.rank < fullest.rank)) {
      fullest = passage;
      most = covered;
    }
  });
  return fullest.fileWeight >= top.fileWeight ? fullest.file : top.file;
}
