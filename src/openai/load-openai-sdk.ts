/** The `openai` package's module type (type-only: importing this file loads nothing). */
export type OpenAISdk = typeof import("openai");

let sdk: OpenAISdk | undefined;
let loading: Promise<OpenAISdk> | undefined;

/**
 * Loads the `openai` SDK on first use. Importing ragsynth must not load it (about 70 ms of start-up that an
 * offline run, a custom model or the extractive answerer never needs), so providers await this before their
 * first request.
 */
export function loadOpenAISdk(): Promise<OpenAISdk> {
  loading ??= import("openai").then((module) => {
    sdk = module;
    return module;
  });
  return loading;
}

/**
 * The SDK if {@link loadOpenAISdk} has loaded it, else `undefined`. Error mapping uses it: an error can only
 * be one of the SDK's classes once the SDK is loaded.
 */
export function loadedOpenAISdk(): OpenAISdk | undefined {
  return sdk;
}
