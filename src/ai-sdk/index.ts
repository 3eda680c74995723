export {
  type AiSdkCallArguments,
  type AiSdkFunctions,
  type AiSdkUsage,
  type FromAiSdkOptions,
  fromAiSdk,
} from "./from-ai-sdk.js";
