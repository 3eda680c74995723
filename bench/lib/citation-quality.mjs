// Citations on the labelled questions, offline: each question asked as `ask --citations` asks it (the CLI's
// retriever, top 4, compact, ExtractiveLLM with its quotes cited by construction). Per answer: whether it cites,
// and for every citation whether the cited piece comes from a file the question names as relevant.
import { basename } from "node:path";

/**
 * `{ answers, citing, citations, relevant, precision, precisionWhenRetrieved, invalid, unsupported }` over
 * `questions` (`{ id, question | query, files }`). `precision` is relevant citations / all citations;
 * `precisionWhenRetrieved` counts only answers whose retrieved pieces include a relevant file (a citation can be
 * right only when a right file was retrieved, so this separates citing from retrieval).
 */
export async function citationQuality({ lib, index, questions, mode, topK }) {
  const engine = new lib.CitationQueryEngine({
    // As the CLI retrieves: the top k different texts (collapseCopies).
    retriever: lib.collapseCopies(
      (similarityTopK) => index.asRetriever({ similarityTopK, retrievalMode: mode }),
      topK,
    ),
    llm: new lib.ExtractiveLLM(),
    responseMode: "compact",
    citeVerbatimQuotes: true,
  });
  const totals = {
    answers: 0,
    citing: 0,
    citations: 0,
    relevant: 0,
    retrievedCitations: 0,
    retrievedRelevant: 0,
    invalid: 0,
    unsupported: 0,
  };
  const perQuestion = [];
  for (const question of questions) {
    const { citations } = await engine.query({ query: question.question ?? question.query });
    const fileOf = (source) => basename(String(source.location.filePath ?? ""));
    const isRelevant = (source) => question.files.includes(fileOf(source));
    const relevant = citations.citations.filter((citation) => isRelevant(citation.source)).length;
    const retrieved = citations.sources.some(isRelevant);
    totals.answers += 1;
    totals.citing += citations.citations.length > 0 ? 1 : 0;
    totals.citations += citations.citations.length;
    totals.relevant += relevant;
    if (retrieved) {
      totals.retrievedCitations += citations.citations.length;
      totals.retrievedRelevant += relevant;
    }
    totals.invalid += citations.invalid.length;
    totals.unsupported += citations.unsupported.length;
    perQuestion.push({ id: question.id, citations: citations.citations.length, relevant, retrieved });
  }
  const ratio = (part, whole) => (whole === 0 ? 0 : part / whole);
  return {
    ...totals,
    citingShare: ratio(totals.citing, totals.answers),
    precision: ratio(totals.relevant, totals.citations),
    precisionWhenRetrieved: ratio(totals.retrievedRelevant, totals.retrievedCitations),
    perQuestion,
  };
}
