// The quality figure for `npm run bench`: bench/quality.mjs's table (Recall@1/@4, MRR, phrase hit rates on the
// labelled questions over the small corpus, offline) with the issue's targets, and the odd/even halves.
import { NOT_BUILT, ragsynthExports } from "../lib/libs.mjs";
import { target } from "../lib/report.mjs";
import { qualityFigure as measureQuality } from "../quality.mjs";

export async function qualityFigure() {
  const title = "Retrieval and answer quality on the small corpus, offline (bench/quality/questions.json)";
  const headers = [
    "retriever",
    "Recall@1",
    "Recall@4",
    "MRR@10",
    "retrieved text holds the phrase",
    "answer holds the phrase",
    "answer words (mean)",
    "Recall@1 odd / even",
    "Recall@4 odd / even",
    "answer odd / even",
    "answer words odd / even",
  ];
  const lib = await ragsynthExports([
    "VectorStoreIndex",
    "ExtractiveLLM",
    "HashingEmbedder",
    "readDocuments",
    "CitationQueryEngine",
  ]);
  if (typeof lib === "string") {
    return {
      id: "quality",
      title,
      headers,
      rows: [["all", NOT_BUILT, "", "", "", "", "", "", "", "", ""]],
      notes: [lib],
    };
  }
  const { corpus, questions, chunks, rows, halves, citations } = await measureQuality();
  const pct = (value) => `${(value * 100).toFixed(0)}%`;
  const table = rows.map((row, index) => {
    const { odd, even } = halves[index];
    return [
      row.name,
      row.recallAt1.toFixed(2),
      row.recallAt4.toFixed(2),
      row.mrr.toFixed(2),
      pct(row.contextHit),
      pct(row.answerHit),
      row.answerWords.toFixed(0),
      `${odd.recallAt1.toFixed(2)} / ${even.recallAt1.toFixed(2)}`,
      `${odd.recallAt4.toFixed(2)} / ${even.recallAt4.toFixed(2)}`,
      `${pct(odd.answerHit)} / ${pct(even.answerHit)}`,
      `${odd.answerWords.toFixed(0)} / ${even.answerWords.toFixed(0)}`,
    ];
  });
  const best = rows[0];
  const { odd, even } = halves[0];
  const lowerHalf = Math.min(odd.answerHit, even.answerHit);
  const cited = citations[0];
  return {
    id: "quality",
    title,
    headers,
    rows: table,
    targets: [
      target("default: Recall@1", "≥ 0.85", best.recallAt1.toFixed(2), best.recallAt1 >= 0.85),
      target("default: Recall@4", "≥ 0.93", best.recallAt4.toFixed(2), best.recallAt4 >= 0.93),
      target(
        "default: answer holds the phrase, each half",
        "≥ 70%",
        `${pct(odd.answerHit)} / ${pct(even.answerHit)} at ${best.answerWords.toFixed(0)} words`,
        lowerHalf >= 0.7,
      ),
      target(
        "default, --citations: every answer cites",
        "100%",
        `${cited.citing}/${cited.answers}`,
        cited.citing === cited.answers,
      ),
      target(
        "default, --citations: citation precision (cited piece from a relevant file)",
        "≥ 0.9",
        `${cited.precision.toFixed(2)} (${cited.relevant}/${cited.citations}); ${cited.precisionWhenRetrieved.toFixed(2)} where a relevant file was retrieved`,
        cited.precision >= 0.9,
      ),
    ],
    notes: [
      `${questions} labelled questions over the small corpus (${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB, ${chunks} chunks), as the CLI runs them offline: SentenceSplitter defaults, top 4, compact, ExtractiveLLM. Recall@k: a chunk of the right file among the first k; the phrase checks ignore case and whitespace. Answer words: a longer answer holds the phrase more often, so its length is shown beside it (the answer is cut to 256 tokens).`,
      `Citations: each question asked as \`ask --citations\` asks it offline (the extractive answer's quotes cited with the piece each was copied from, so every citation's quote is verbatim in its piece). Precision counts a citation right when its piece comes from a file the question names; ${citations.map((row) => `${row.name}: ${row.citations} citations, ${row.invalid} invalid, ${row.unsupported} unsupported`).join("; ")}.`,
      "Odd / even: the questions at odd and even positions in the file, reported apart so a change tuned to some questions shows up as a gap between the halves.",
    ],
    json: { questions, chunks, rows, halves, citations },
  };
}
