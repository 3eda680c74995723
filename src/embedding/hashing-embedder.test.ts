import { describe, expect, it } from "vitest";
import { BIGRAM_PREFIX, lexicalTerms } from "../analysis/lexical-terms.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { getTopKEmbeddings } from "../retrieval/get-top-k-embeddings.js";
import { HashingEmbedder } from "./hashing-embedder.js";

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

describe("lexicalTerms", () => {
  it("lowercases, drops stop words and strips plural endings", () => {
    expect(lexicalTerms("What is the capital of France? Cities and boxes!")).toEqual([
      "capital",
      "france",
      "city",
      "boxe",
    ]);
    expect(lexicalTerms("France's museums")).toEqual(["france", "museum"]);
  });

  it("can keep stop words and skip stemming", () => {
    expect(lexicalTerms("The cities", { stopWords: false, stemming: false })).toEqual(["the", "cities"]);
  });

  it("splits Chinese into words and adds character bigrams without stop characters", () => {
    expect(lexicalTerms("巴黎是法国的首都。")).toEqual([
      "巴黎",
      "法国",
      "首都",
      `${BIGRAM_PREFIX}巴黎`,
      `${BIGRAM_PREFIX}法国`,
      `${BIGRAM_PREFIX}首都`,
    ]);
  });

  it("normalises full-width characters", () => {
    expect(lexicalTerms("ＰＡＲＩＳ")).toEqual(lexicalTerms("paris"));
  });
});

describe("HashingEmbedder", () => {
  it("has a versioned id that names its settings", () => {
    expect(new HashingEmbedder().id).toBe("hashing-tfidf-v2:1024");
    expect(new HashingEmbedder({ dimensions: 256, stopWords: false, stemming: false }).id).toBe(
      "hashing-tfidf-v2:256:nostop:nostem",
    );
  });

  it("fit returns a new embedder whose id carries the IDF fingerprint; the original is unchanged", () => {
    const base = new HashingEmbedder();
    const fitted = base.fit(["a cat sat", "a dog ran"]);
    expect(base.id).toBe("hashing-tfidf-v2:1024");
    expect(base.documentCount).toBe(0);
    expect(fitted.id).toMatch(/^hashing-tfidf-v2:1024:idf-[0-9a-f]{8}$/);
    expect(fitted.documentCount).toBe(2);
    expect(base.fit(["a dog ran", "a cat sat"]).id).toBe(fitted.id);
    expect(base.fit(["a cat sat", "a cat ran"]).id).not.toBe(fitted.id);
  });

  it("is deterministic and L2-normalised", async () => {
    const embedder = new HashingEmbedder({ dimensions: 64 });
    const [first, second] = await embedder.getTextEmbeddings(["Paris is lovely.", "Paris is lovely."]);
    expect(first).toHaveLength(64);
    expect(first).toEqual(second);
    expect(norm(first as number[])).toBeCloseTo(1, 12);
    expect(await new HashingEmbedder({ dimensions: 64 }).getQueryEmbedding("Paris is lovely.")).toEqual(
      first,
    );
  });

  it("gives an all-zero vector to text without terms", () => {
    const vector = new HashingEmbedder({ dimensions: 8 }).embed("the of, and!");
    expect(vector).toEqual(new Array(8).fill(0));
  });

  it("ranks the sentence sharing the query's words first (lexical, not semantic)", async () => {
    const sentences = [
      "The Eiffel Tower was finished in 1889.",
      "Paris is the capital of France.",
      "Bananas are rich in potassium.",
      "An automobile needs fuel.",
    ];
    const embedder = new HashingEmbedder().fit(sentences);
    const embeddings = await embedder.getTextEmbeddings(sentences);
    const query = await embedder.getQueryEmbedding("What is the capital of France?");
    expect(getTopKEmbeddings({ queryEmbedding: query, embeddings, similarityTopK: 1 }).ids).toEqual([1]);
    // Lexical only: "car" shares no word with "automobile".
    const car = await embedder.getQueryEmbedding("car");
    expect(embedder.similarity(car, embeddings[3] as number[])).toBe(0);
  });

  it("matches Chinese queries to Chinese passages", async () => {
    const sentences = ["北京是中国的首都。", "巴黎是法国的首都。", "熊猫喜欢吃竹子。"];
    const embedder = new HashingEmbedder().fit(sentences);
    const embeddings = await embedder.getTextEmbeddings(sentences);
    const query = await embedder.getQueryEmbedding("法国的首都是哪里？");
    const result = getTopKEmbeddings({ queryEmbedding: query, embeddings });
    expect(result.ids[0]).toBe(1);
    expect(result.similarities[2]).toBe(0);
  });

  it("IDF lowers the weight of terms found everywhere", () => {
    const corpus = ["report on paris", "report on rome", "report on oslo"];
    const plain = new HashingEmbedder();
    const fitted = plain.fit(corpus);
    const score = (embedder: HashingEmbedder) =>
      embedder.similarity(embedder.embed("report paris"), embedder.embed("report on rome"));
    expect(score(fitted)).toBeLessThan(score(plain));
  });

  it("honours an aborted signal and rejects bad input", async () => {
    const controller = new AbortController();
    controller.abort();
    const embedder = new HashingEmbedder();
    await expect(embedder.getTextEmbeddings(["x"], { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(embedder.getQueryEmbedding("x", { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(embedder.getTextEmbeddings([42 as unknown as string])).rejects.toThrowError(
      "Expected `texts[0]` to be a string, got `42` (number).",
    );
    for (const dimensions of [0, 1.5, -3]) {
      try {
        new HashingEmbedder({ dimensions });
        expect.unreachable();
      } catch (error) {
        expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      }
    }
  });
});

describe('HashingEmbedder with applyIdf: "query"', () => {
  const corpus = ["the cat sat", "the dog sat", "the cat ran", "a zebra"];

  it("leaves document vectors and the id (the cache key) as unfitted, so a changed corpus re-embeds nothing else", async () => {
    const plain = new HashingEmbedder();
    const fitted = new HashingEmbedder({ applyIdf: "query", corpus });
    const refitted = new HashingEmbedder({ applyIdf: "query", corpus: [...corpus, "another zebra"] });
    expect(fitted.id).toBe(plain.id);
    expect(refitted.id).toBe(plain.id);
    expect(await fitted.getTextEmbeddings(["the cat sat"])).toEqual(
      await plain.getTextEmbeddings(["the cat sat"]),
    );
  });

  it("weights the query by IDF: the rare query word decides the ranking", async () => {
    const fitted = new HashingEmbedder({ applyIdf: "query", corpus });
    const plain = new HashingEmbedder();
    const documents = ["cat cat", "zebra"];
    const query = "cat zebra";
    const scores = async (embedder: HashingEmbedder) => {
      const [q, vectors] = [
        await embedder.getQueryEmbedding(query),
        await embedder.getTextEmbeddings(documents),
      ];
      return vectors.map((vector) => embedder.similarity(q, vector));
    };
    const [plainCat, plainZebra] = await scores(plain);
    const [fittedCat, fittedZebra] = await scores(fitted);
    expect(plainCat).toBeCloseTo(plainZebra as number, 10); // unweighted: a tie
    expect(fittedZebra).toBeGreaterThan(fittedCat as number); // "zebra" is in 1 of 4 documents, "cat" in 2
  });

  it("rejects an unknown applyIdf", () => {
    expect(() => new HashingEmbedder({ applyIdf: "documents" as "both" })).toThrow(
      /Expected `applyIdf` to be "both" or "query"/,
    );
  });

  it("reads a lazy corpus on the first query embedding only, and weights that query by its IDF", async () => {
    const corpus = ["zebras graze", "release notes", "release branch", "release tags"];
    let reads = 0;
    const lazy = new HashingEmbedder({
      applyIdf: "query",
      corpus: () => {
        reads++;
        return corpus;
      },
    });
    const eager = new HashingEmbedder({ applyIdf: "query", corpus });
    expect(lazy.id).toBe(eager.id);
    await lazy.getTextEmbeddings(corpus);
    expect(reads).toBe(0);
    expect(await lazy.getQueryEmbedding("zebras release")).toEqual(
      await eager.getQueryEmbedding("zebras release"),
    );
    await lazy.getQueryEmbedding("again");
    expect(reads).toBe(1);
    expect(() => new HashingEmbedder({ corpus: () => corpus })).toThrow(
      /a function only with applyIdf: "query"/,
    );
  });
});
