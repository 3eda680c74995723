export {
  type AiSdkCallArguments,
  type AiSdkCallExtras,
  type AiSdkCallSettings,
  type AiSdkFunctions,
  type AiSdkMessage,
  type AiSdkStructuredOutput,
  type AiSdkSystemField,
  type AiSdkUsage,
  type AiSdkUserPart,
  type FromAiSdkOptions,
  fromAiSdk,
} from "./from-ai-sdk.js";
