export type { LangChainDocumentLike } from "./document-to-node.js";
export {
  type FromLangChainChatModelOptions,
  fromLangChainChatModel,
  type LangChainAIMessageLike,
  type LangChainChatModelLike,
  type LangChainMessageInput,
} from "./from-langchain-chat-model.js";
export {
  type FromLangChainEmbeddingsOptions,
  fromLangChainEmbeddings,
  type LangChainEmbeddingsLike,
} from "./from-langchain-embeddings.js";
export {
  type FromLangChainRetrieverOptions,
  fromLangChainRetriever,
  fromLangChainVectorStore,
  type LangChainRetrieverLike,
  type LangChainVectorStoreLike,
} from "./from-langchain-retriever.js";
export {
  type RagsynthAnswerWithSources,
  RagsynthRunnable,
  type RagsynthRunnableInput,
  RagsynthSourcesRunnable,
  type RunnableTarget,
  toLangChainRunnable,
} from "./to-langchain-runnable.js";
