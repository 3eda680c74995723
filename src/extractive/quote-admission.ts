import { lexicalTerms } from "../analysis/lexical-terms.js";

// Which of the ranked passages an answer may still take, beyond their order: two rules against quoting (and so
// citing) text that adds nothing to the answer.

// A passage scoring under this share of the best passage's score is not quoted.
const RELATIVE_FLOOR = 0.2;
// A passage of a file the answer does not quote yet is not quoted when this share of its terms is already in it.
const REPEATED_SHARE = 0.7;

/** What {@link quoteAdmission} reads of a passage. @internal */
export interface AdmittedPassage {
  text: string;
  score: number;
  /** The retrieved file it comes from (its metadata lines), or "" when the context does not say. */
  file: string;
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
 * - **nothing new from a new file**: a passage of a retrieved file the answer does not quote yet, whose terms are at
 *   least {@link REPEATED_SHARE} already in the quotes chosen, is left out: a neighbouring package's copy of the same
 *   option list, or another file restating what the answer says, adds only a citation of the wrong file.
 * Neither holds back a quote of the answer so far (it was chosen against its own context), nor a passage of a section
 * already quoted (a terse `Default: 10000` line beside the sentence that names the option); the second rule does not
 * apply to a passage whose file is unknown. `admits` is asked in ranking order; `quoted` is told each passage taken.
 * @internal
 */
export function quoteAdmission(passages: readonly AdmittedPassage[]): {
  admits(passage: AdmittedPassage): boolean;
  quoted(passage: AdmittedPassage): void;
} {
  // A loop, not Math.max(...scores): a million-token context holds more passages than a call may take arguments.
  let best = 0;
  for (const passage of passages) if (passage.score > best) best = passage.score;
  const floor = RELATIVE_FLOOR * best;
  const files = new Set<string>();
  const sections = new Set<string>();
  const said = new Set<string>();
  const sectionOf = (passage: AdmittedPassage) => `${passage.source}:${passage.section}`;
  return {
    admits: (passage) => {
      if (passage.source === 0) return true;
      if (passage.section >= 0 && sections.has(sectionOf(passage))) return true;
      if (passage.score < floor) return false;
      if (passage.file === "" || files.size === 0 || files.has(passage.file)) return true;
      const terms = new Set(lexicalTerms(passage.text));
      let repeated = 0;
      for (const term of terms) if (said.has(term)) repeated++;
      return terms.size === 0 || repeated / terms.size < REPEATED_SHARE;
    },
    quoted: (passage) => {
      files.add(passage.file);
      sections.add(sectionOf(passage));
      for (const term of lexicalTerms(passage.text)) said.add(term);
    },
  };
}
