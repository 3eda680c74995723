export {
  type AiSdkCallArguments,
  type AiSdkFunctions,
  type AiSdkMessage,
  type AiSdkSystemField,
  type AiSdkUsage,
  type AiSdkUserPart,
  type FromAiSdkOptions,
  fromAiSdk,
} from "./from-ai-sdk.js";
