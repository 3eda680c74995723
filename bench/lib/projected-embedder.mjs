// A dense stand-in for a neural embedding model, none of which can run on the bench machine: each text's hashed
// TF-IDF vector (ragsynth's HashingEmbedder at 4,096 slots) through one fixed Gaussian random projection to
// `dimensions`. Cosine between projected vectors approximates the TF-IDF cosine (Johnson–Lindenstrauss), and the
// vectors are dense with every sign mixed, as a neural model's are; what they do not have is a neural model's
// sense of meaning (synonyms): this measures search over vectors, not retrieval quality.

const SLOTS = 4096;

/** The fixed projection: `SLOTS × dimensions` Gaussian values from a seeded generator (the same in every process). */
function projection(dimensions, seed = 12345) {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
  const matrix = new Float32Array(SLOTS * dimensions);
  for (let index = 0; index < matrix.length; index++)
    matrix[index] = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  return matrix;
}

/** An Embedder (ragsynth's contract) of `dimensions`-long projected TF-IDF vectors, stored by the index like a model's. */
export function projectedEmbedder(lib, dimensions = 384) {
  const hashing = new lib.HashingEmbedder({ dimensions: SLOTS });
  const matrix = projection(dimensions);
  const project = (sparse) => {
    const out = new Float32Array(dimensions);
    for (let slot = 0; slot < SLOTS; slot++) {
      const weight = sparse[slot];
      if (weight === 0) continue;
      for (let d = 0, at = slot * dimensions; d < dimensions; d++, at++) out[d] += weight * matrix[at];
    }
    return Array.from(out);
  };
  return {
    id: `bench-projected-tfidf:${SLOTS}:${dimensions}`,
    dimensions,
    async getTextEmbeddings(texts) {
      return (await hashing.getTextEmbeddings(texts)).map(project);
    },
    async getQueryEmbedding(text) {
      return project(await hashing.getQueryEmbedding(text));
    },
  };
}
