export { createFusionRetriever, type FusionRetrieverOptions } from "./fusion-retriever.js";
export { RRF_K, reciprocalRankFusion } from "./reciprocal-rank-fusion.js";
