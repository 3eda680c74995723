/** One document the model chose, numbered from 1 within its batch. */
export interface Choice {
  document: number;
  relevance: number;
}

/** What a choice-select answer said, and what could not be used. */
export interface ParsedChoiceSelectAnswer {
  /** Valid choices in the order the model listed them; a repeated document keeps its first line. */
  choices: Choice[];
  /** Lines naming a document outside 1..numChoices, or one already chosen: ignored. */
  ignoredLines: string[];
  /** Lines naming a document without a readable relevance score. */
  malformedLines: string[];
}

// "Doc: 9", "doc 9", "Document #9", "Doc No. 9", "**Doc 9**".
const DOCUMENT = /\bdoc(?:ument)?\b[\s*_]*(?:#|no\.?|number)?\s*[:=#-]?\s*(-?\d+)/i;
// "Relevance: 7", "relevance score = 7.5", "Relevance 7/10".
const RELEVANCE = /\brelevance(?:\s+score)?\b[\s*_]*[:=-]?\s*(-?\d+(?:\.\d+)?)/i;

/**
 * Reads lines like `Doc: 9, Relevance: 7`, tolerating case, spacing, markdown and extra prose.
 * Differs from LlamaIndex: out-of-range numbers (0, negatives) are ignored rather than indexing from the
 * end of the batch, repeated documents are kept once, and a line it cannot read is reported, not skipped.
 */
export function parseChoiceSelectAnswer(answer: string, numChoices: number): ParsedChoiceSelectAnswer {
  const parsed: ParsedChoiceSelectAnswer = { choices: [], ignoredLines: [], malformedLines: [] };
  const seen = new Set<number>();
  for (const rawLine of answer.split(/\r?\n/)) {
    const line = rawLine.trim();
    const documentMatch = DOCUMENT.exec(line);
    if (!documentMatch) continue;
    const relevanceMatch = RELEVANCE.exec(line.slice(documentMatch.index + documentMatch[0].length));
    if (!relevanceMatch) {
      parsed.malformedLines.push(line);
      continue;
    }
    const document = Number(documentMatch[1]);
    if (document < 1 || document > numChoices || seen.has(document)) {
      parsed.ignoredLines.push(line);
      continue;
    }
    seen.add(document);
    parsed.choices.push({ document, relevance: Number(relevanceMatch[1]) });
  }
  return parsed;
}
