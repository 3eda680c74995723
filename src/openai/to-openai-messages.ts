import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { ChatMessage } from "../llm/types.js";
import { describeImage, type ImageBlock } from "../schema/content-block.js";
import { readImageFileBlock } from "../schema/image-bytes.js";
import { mediaTypeFromPath } from "../schema/image-node.js";

/** An OpenAI chat message: text, or content parts (`text`, `image_url`). */
export type OpenAIMessage =
  | { role: string; content: string }
  | {
      role: string;
      content: Array<
        | { type: "text"; text: string }
        | { type: "image_url"; image_url: { url: string; detail?: "low" | "high" | "auto" } }
      >;
    };

/**
 * The URL OpenAI gets for an image: as given for URLs, a base64 data URL for bytes and files.
 * @throws InvalidArgumentError when the media type of bytes or a file cannot be told
 */
export async function imageUrlOf(image: ImageBlock): Promise<string> {
  if (image.url !== undefined) return image.url;
  const mediaType = image.mediaType ?? (image.path === undefined ? undefined : mediaTypeFromPath(image.path));
  if (mediaType === undefined) {
    throw new InvalidArgumentError({
      parameter: "mediaType",
      value: undefined,
      expected: `be known for the ${describeImage(image)}`,
      hint: 'Pass mediaType ("image/png", "image/jpeg") on the ImageNode, or name the file with its extension.',
    });
  }
  const bytes = image.data ?? (await readImageFileBlock(image));
  return `data:${mediaType};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** Messages as OpenAI's chat API takes them: multimodal ones as content parts, in block order. */
export async function toOpenAIMessages(messages: readonly ChatMessage[]): Promise<OpenAIMessage[]> {
  return Promise.all(
    messages.map(async (message): Promise<OpenAIMessage> => {
      if (!message.blocks) return { role: message.role, content: message.content };
      const content = await Promise.all(
        message.blocks.map(async (block) =>
          block.type === "text"
            ? { type: "text" as const, text: block.text }
            : {
                type: "image_url" as const,
                image_url: {
                  url: await imageUrlOf(block),
                  ...(block.detail === undefined ? {} : { detail: block.detail }),
                },
              },
        ),
      );
      return { role: message.role, content };
    }),
  );
}
