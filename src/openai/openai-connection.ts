import type OpenAI from "openai";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import { scrubSecrets, stripUrlCredentials } from "../errors/scrub-secrets.js";
import { loadOpenAISdk } from "./load-openai-sdk.js";
import { redactUrl } from "./to-llm-error.js";

/** The official endpoint, used when neither `baseURL` nor `OPENAI_BASE_URL` is set. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** How to reach an OpenAI-compatible server; shared by {@link OpenAILike} and `OpenAILikeEmbedding`. */
export interface OpenAIConnectionOptions {
  /**
   * The API key. Required for api.openai.com; local servers (Ollama, vLLM, llama.cpp) get a placeholder.
   * @default process.env.OPENAI_API_KEY
   */
  apiKey?: string | undefined;
  /**
   * The server's `/v1` URL: `http://localhost:11434/v1` (Ollama), `http://localhost:8000/v1` (vLLM),
   * `http://localhost:8080/v1` (llama.cpp `llama-server`).
   * @default process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1"
   */
  baseURL?: string | undefined;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  fetch?: ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) | undefined;
  /** Extra headers sent with every request. Values of auth-like headers are scrubbed from errors too. */
  headers?: Record<string, string> | undefined;
}

/** A configured client plus what error mapping needs to know. */
export interface OpenAIConnection {
  /** The client, built on first use (the `openai` SDK loads then, not when ragsynth is imported). */
  client(): Promise<OpenAI>;
  /** The base URL as configured. */
  baseURL: string;
  /** True for api.openai.com. */
  isOpenAI: boolean;
  /** Everything to scrub from error text. */
  secrets: string[];
  /** The redacted URL of an endpoint below the base URL (`chat/completions`). */
  endpoint(path: string): string;
}

function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return scrubSecrets(value, secrets);
  if (value instanceof Error) return scrubSecrets(`${value.name}: ${value.message}`, secrets);
  try {
    return JSON.parse(scrubSecrets(JSON.stringify(value) ?? "null", secrets));
  } catch {
    return "[unserializable]";
  }
}

/** The openai client logs (`OPENAI_LOG=debug`) through this, so a server-echoed key never reaches the console. */
function scrubbingLogger(secrets: readonly string[]) {
  const wrap =
    (method: "error" | "warn" | "info" | "debug") =>
    (message: string, ...rest: unknown[]) =>
      console[method](scrubSecrets(message, secrets), ...rest.map((value) => scrubValue(value, secrets)));
  return { error: wrap("error"), warn: wrap("warn"), info: wrap("info"), debug: wrap("debug") };
}

/** True when `baseURL` points at the official OpenAI API. */
export function isOpenAIBaseURL(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/**
 * Builds the openai client with its own retries turned off: {@link retryWithBackoff} is the one retry policy.
 * @throws LLMError `missing_api_key` when the official endpoint is used without a key
 */
export function createOpenAIConnection(options: OpenAIConnectionOptions, owner: string): OpenAIConnection {
  const given = options.baseURL ?? (process.env.OPENAI_BASE_URL || OPENAI_BASE_URL);
  // A query on the base URL (Azure's `…/v1?api-version=…`) belongs after each request's path, not inside it.
  const [pathPart = "", ...queryParts] = given.split("?");
  const baseURL = pathPart.replace(/\/+$/, "");
  const query = queryParts.join("?");
  if (!/^https?:\/\/[^/]/i.test(baseURL) || !URL.canParse(baseURL)) {
    throw new InvalidArgumentError({
      parameter: "baseURL",
      value: redactUrl(baseURL) === "(invalid URL)" ? stripUrlCredentials(baseURL) : redactUrl(baseURL),
      expected: 'be an http(s) URL such as "http://localhost:11434/v1"',
    });
  }
  const parsed = new URL(baseURL);
  if (parsed.username !== "" || parsed.password !== "") {
    // fetch refuses URLs with credentials, and a URL is printed in errors and traces: never keep them there.
    throw new InvalidArgumentError({
      parameter: "baseURL",
      value: redactUrl(baseURL),
      expected: "have no user name or password in it (user:password@)",
      hint: "Pass the key as apiKey (the CLI reads RAGSYNTH_API_KEY or OPENAI_API_KEY), or other credentials as headers, and remove them from the URL.",
    });
  }
  const isOpenAI = isOpenAIBaseURL(baseURL);
  const apiKey = options.apiKey ?? (process.env.OPENAI_API_KEY || undefined);
  if (isOpenAI && !apiKey) {
    throw new LLMError({
      code: "missing_api_key",
      url: redactUrl(baseURL),
      message: `${owner} needs an API key for ${redactUrl(baseURL)}. Set OPENAI_API_KEY or pass apiKey; for a local server (Ollama, vLLM, llama.cpp) pass its baseURL instead.`,
    });
  }
  const secrets = apiKey ? [apiKey] : [];
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/auth|key|token|secret|cookie/i.test(name)) secrets.push(value.replace(/^Bearer\s+/i, ""));
  }
  let client: Promise<OpenAI> | undefined;
  return {
    client: () => {
      client ??= loadOpenAISdk().then(
        ({ default: OpenAI }) =>
          new OpenAI({
            apiKey: apiKey || "not-needed",
            baseURL,
            maxRetries: 0,
            logger: scrubbingLogger(secrets),
            ...(query !== "" ? { defaultQuery: Object.fromEntries(new URLSearchParams(query)) } : {}),
            ...(options.fetch ? { fetch: options.fetch } : {}),
            ...(options.headers ? { defaultHeaders: options.headers } : {}),
          }),
      );
      return client;
    },
    baseURL,
    isOpenAI,
    secrets,
    endpoint: (path) => redactUrl(`${baseURL}/${path}`),
  };
}

/** The host and port of a base URL (the scheme's default port when none is given): no path, query or credentials. */
export function serverOf(baseURL: string): { address: string; port: number } | undefined {
  if (!URL.canParse(baseURL)) return undefined;
  const url = new URL(baseURL);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { address: url.hostname, port };
}
