export type { OpenAIConnectionOptions } from "./openai-connection.js";
export { OpenAILike } from "./openai-like.js";
export { OpenAILikeEmbedding, type OpenAILikeEmbeddingOptions } from "./openai-like-embedding.js";
export type { OpenAILikeOptions } from "./openai-like-options.js";
