export { OPENAI_BASE_URL, type OpenAIConnectionOptions } from "./openai-connection.js";
export { OpenAILike } from "./openai-like.js";
export { OpenAILikeEmbedding, type OpenAILikeEmbeddingOptions } from "./openai-like-embedding.js";
export { OLLAMA_DEFAULT_NUM_CTX, type OpenAILikeOptions } from "./openai-like-options.js";
export { type ModelSpec, parseModelSpec } from "./parse-model-spec.js";
