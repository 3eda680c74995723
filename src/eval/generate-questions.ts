import { PromptHelper } from "../budget/prompt-helper.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkModel } from "../llm/check-model.js";
import type { LLM } from "../llm/types.js";
import { predict } from "../prompt/predict.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { checkTextNodes } from "../schema/check-text-nodes.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import type { EvalQuestion } from "./eval-questions.js";
import { seededShuffle } from "./seeded-shuffle.js";

/**
 * LlamaIndex's question-generation prompt (`generate_qa_embedding_pairs`, llama_dataset/legacy/embedding.py),
 * text for text, including the stray closing quote of the Python source.
 */
export const QUESTION_GENERATION_PROMPT = new PromptTemplate({
  template:
    "Context information is below.\n\n---------------------\n{context_str}\n---------------------\n\n" +
    "Given the context information and not prior knowledge.\ngenerate only questions based on the below query.\n\n" +
    "You are a Teacher/ Professor. Your task is to setup {num_questions_per_chunk} questions for an upcoming " +
    "quiz/examination. The questions should be diverse in nature across the document. Restrict the questions to " +
    'the context information provided."\n',
});

/** Options of {@link generateQuestions}. */
export interface GenerateQuestionsOptions {
  /** The chunks to sample from (an index's nodes). */
  nodes: readonly TextNode[];
  /** Writes the questions and their reference answers. */
  llm: LLM;
  /** Questions to write: one per sampled chunk, at most one per chunk. */
  count: number;
  /** Picks the chunks (the same seed and chunks give the same sample). @default 1 */
  seed?: number;
  /** The model's budget: a chunk too long for the prompt is cut to fit. @default PromptHelper.fromLLMMetadata(llm.metadata) */
  promptHelper?: PromptHelper;
  /** Called as each question is written. */
  onQuestion?: (question: EvalQuestion, done: number) => void;
  signal?: AbortSignal;
}

/** What {@link generateQuestions} returns: the questions, and the chunks whose reply held no question. */
export interface GeneratedQuestions {
  questions: EvalQuestion[];
  /** Chunk ids the model wrote no question for (an empty or unreadable reply): reported, not hidden. */
  skipped: string[];
}

/**
 * Writes a labelled questions file from documents, as LlamaIndex's `generate_qa_embedding_pairs` does: for each
 * sampled chunk, its question-generation prompt asks for one question (numbering stripped, first non-empty line
 * kept), the chunk's id is the question's `relevant`, and the model's compact answer from that chunk alone is its
 * `reference`.
 */
export async function generateQuestions(options: GenerateQuestionsOptions): Promise<GeneratedQuestions> {
  const given = optionsOf("options", options, "{ nodes, llm, count, seed?, … }");
  checkModel("llm", given.llm);
  checkTextNodes(given.nodes, "nodes");
  const {
    nodes,
    llm,
    count,
    seed = 1,
    promptHelper = PromptHelper.fromLLMMetadata(given.llm.metadata),
    onQuestion,
    signal,
  } = given;
  if (!Number.isInteger(count) || count < 1) {
    throw new InvalidArgumentError({ parameter: "count", value: count, expected: "be a positive integer" });
  }
  const candidates = nodes.filter((node) => node.text.trim() !== "");
  const sample = seededShuffle(candidates, seed).slice(0, count);
  const answerer = getResponseSynthesizer({ llm, responseMode: "compact", promptHelper });
  const questions: EvalQuestion[] = [];
  const skipped: string[] = [];
  for (const node of sample) {
    const variables = { num_questions_per_chunk: "1" };
    const [context] = promptHelper.truncate(QUESTION_GENERATION_PROMPT, [node.text], { llm, variables });
    const reply = await predict({
      llm,
      prompt: QUESTION_GENERATION_PROMPT,
      variables: { ...variables, context_str: context ?? "" },
      maxTokens: promptHelper.numOutput,
      ...(signal ? { signal } : {}),
    });
    const query = firstQuestion(reply.text);
    if (query === undefined) {
      skipped.push(node.id);
      continue;
    }
    const chunk: NodeWithScore = { node: new TextNode({ text: node.text }) };
    const answer = await answerer.synthesize({ query, nodes: [chunk], ...(signal ? { signal } : {}) });
    const question: EvalQuestion = {
      id: `q${questions.length + 1}`,
      query,
      relevant: [node.id],
      reference: answer.response,
    };
    questions.push(question);
    onQuestion?.(question, questions.length);
  }
  return { questions, skipped };
}

/** LlamaIndex's reading of the reply: lines, a leading `1.`/`1)` removed, the first non-empty one. */
export function firstQuestion(reply: string): string | undefined {
  return reply
    .trim()
    .split("\n")
    .map((line) => line.replace(/^\d+[).\s]/, "").trim())
    .find((line) => line.length > 0);
}
