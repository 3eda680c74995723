export { convertArrayToAsyncIterable } from "./array-to-async-iterable.js";
export {
  echoResponder,
  type FakeOpenAIImage,
  type FakeOpenAIPrompt,
  type FakeOpenAIReply,
  type FakeOpenAIResponder,
  fakeEmbedding,
  seededRandom,
} from "./fake-openai-replies.js";
export {
  type FakeOpenAIFault,
  type FakeOpenAIFaultRule,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
} from "./fake-openai-server.js";
export { MockEmbedding, type MockEmbeddingCall, type MockEmbeddingOptions } from "./mock-embedding.js";
export {
  type MockAnswer,
  MockLLM,
  type MockLLMCall,
  type MockLLMInput,
  type MockLLMOptions,
  type MockResponse,
  type MockStreamBy,
} from "./mock-llm.js";
