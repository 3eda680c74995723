import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
/** What the fake server's responder is asked: the parsed request and its prompt text. */
export interface FakeOpenAIPrompt {
  /** Zero-based index of the request among all requests the server received. */
  index: number;
  /** `/v1/chat/completions` or `/v1/completions`. */
  path: string;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** The chat messages, for chat requests. */
  messages: Array<{ role: string; content: string }>;
  /** The last user message (chat) or the prompt (completions). */
  prompt: string;
  /** Every `image_url` content part of the chat messages, in order, with the media type of data URLs. */
  images: FakeOpenAIImage[];
}

/** An image a chat request carried. */
export interface FakeOpenAIImage {
  /** The URL as sent (`data:image/png;base64,…` or `https://…`). */
  url: string;
  /** `low`, `high` or `auto` when sent. */
  detail?: string;
  /** The media type of a data URL. */
  mediaType?: string;
  /** The decoded bytes of a base64 data URL. */
  bytes?: Uint8Array;
}

function imagesOf(messages: ReadonlyArray<Record<string, unknown>>): FakeOpenAIImage[] {
  const images: FakeOpenAIImage[] = [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as Array<Record<string, unknown>>) {
      const imageUrl = part.image_url as { url?: unknown; detail?: unknown } | undefined;
      if (part.type !== "image_url" || typeof imageUrl?.url !== "string") continue;
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(imageUrl.url);
      images.push({
        url: imageUrl.url,
        ...(typeof imageUrl.detail === "string" ? { detail: imageUrl.detail } : {}),
        ...(data ? { mediaType: data[1], bytes: new Uint8Array(Buffer.from(data[2] ?? "", "base64")) } : {}),
      });
    }
  }
  return images;
}

/** An answer: its text, split into deltas for streams (by word unless `deltas` is given), and usage. */
export interface FakeOpenAIReply {
  text?: string;
  /** The exact stream deltas; joined for non-streaming answers. */
  deltas?: string[];
  /** Reported usage; counted from words when omitted, not sent when null. */
  usage?: { promptTokens: number; completionTokens: number } | null;
  /** @default "stop" */
  finishReason?: string;
}

/** Answers a request: a text, a reply, or a promise of either. */
export type FakeOpenAIResponder = (
  prompt: FakeOpenAIPrompt,
) => string | FakeOpenAIReply | Promise<string | FakeOpenAIReply>;

/** The default responder: echoes the last user message (or the completion prompt). */
export const echoResponder: FakeOpenAIResponder = (request) => {
  const { prompt } = optionsOf("request", request, "{ prompt, … } (the server's parsed request)");
  checkString("request.prompt", prompt);
  return prompt;
};

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        (part as { type?: unknown }).type === "image_url" ? "[image]" : (part as { text?: unknown }).text,
      )
      .filter((text) => typeof text === "string")
      .join("");
  }
  return "";
}

/** Reads the prompt out of a chat or completions request body. */
export function promptOf(index: number, path: string, body: Record<string, unknown>): FakeOpenAIPrompt {
  const raw = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  const messages = raw.map((message) => ({
    role: String(message.role),
    content: contentText(message.content),
  }));
  const lastUser = [...messages].reverse().find((message) => message.role === "user");
  const prompt = path.endsWith("/completions") && !path.includes("chat") ? String(body.prompt ?? "") : "";
  return { index, path, body, messages, prompt: lastUser?.content ?? prompt, images: imagesOf(raw) };
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Normalizes a responder's answer: deltas, full text, and usage. */
export function normalizeReply(reply: string | FakeOpenAIReply, prompt: FakeOpenAIPrompt) {
  const value = typeof reply === "string" ? { text: reply } : reply;
  const text = value.text ?? value.deltas?.join("") ?? "";
  const deltas = value.deltas ?? text.match(/\s*\S+/g) ?? [];
  const promptText = prompt.messages.map((message) => message.content).join(" ") || prompt.prompt;
  const usage =
    value.usage === null
      ? undefined
      : (value.usage ?? { promptTokens: words(promptText), completionTokens: deltas.length });
  return { text, deltas, usage, finishReason: value.finishReason ?? "stop" };
}

/** A small seeded PRNG (mulberry32): the same seed gives the same fault pattern. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A deterministic unit vector for a text (FNV-1a hashed words into `dimensions` buckets), so texts
 * sharing words point in similar directions and tests know the exact output.
 */
export function fakeEmbedding(text: string, dimensions = 8): number[] {
  checkString("text", text);
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
    vector[hash % dimensions] = (vector[hash % dimensions] ?? 0) + 1;
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector.map((_, i) => (i === 0 ? 1 : 0)) : vector.map((value) => value / norm);
}

/** The `/v1/chat/completions` or `/v1/completions` body of a finished answer. */
export function completionBody(path: string, model: unknown, reply: ReturnType<typeof normalizeReply>) {
  const chat = path.includes("chat");
  const choice = chat
    ? { index: 0, message: { role: "assistant", content: reply.text }, finish_reason: reply.finishReason }
    : { index: 0, text: reply.text, finish_reason: reply.finishReason };
  return {
    id: "fake-1",
    object: chat ? "chat.completion" : "text_completion",
    created: 0,
    model: String(model ?? "fake"),
    choices: [choice],
    ...(reply.usage ? { usage: usageBody(reply.usage) } : {}),
  };
}

function usageBody(usage: { promptTokens: number; completionTokens: number }) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** One SSE `data:` event carrying a delta (or, with `delta` undefined, the finish or usage chunk). */
export function streamEvent(
  path: string,
  model: unknown,
  part: { delta?: string; finishReason?: string; usage?: { promptTokens: number; completionTokens: number } },
): string {
  const chat = path.includes("chat");
  const choices = part.usage
    ? []
    : [
        chat
          ? {
              index: 0,
              delta: part.delta === undefined ? {} : { content: part.delta },
              finish_reason: part.finishReason ?? null,
            }
          : { index: 0, text: part.delta ?? "", finish_reason: part.finishReason ?? null },
      ];
  const chunk = {
    id: "fake-1",
    object: chat ? "chat.completion.chunk" : "text_completion",
    created: 0,
    model: String(model ?? "fake"),
    choices,
    ...(part.usage ? { usage: usageBody(part.usage) } : {}),
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
