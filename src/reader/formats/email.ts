/**
 * Email: one message (`.eml`, as mail programs save it) or a mailbox of many (`.mbox`, as Thunderbird, mutt and
 * Google Takeout export; LlamaIndex's `SimpleDirectoryReader` reads `.mbox` by default). Both were skipped as binary
 * or read as raw MIME (base64 bodies, headers, boundaries). Each message is parsed by `postal-mime` (a well-kept
 * MIME parser without dependencies: encoded words, quoted-printable and base64 bodies, charsets, nested parts) and
 * becomes its subject as a heading, a line of who wrote to whom and when, its text (the plain part; the HTML part by
 * the HTML reader's rule when there is no plain one) and the names of its attachments, which are not read.
 *
 * A mailbox is cut into messages at its `From ` separator lines (`From sender Tue Jan  2 10:00:00 2024`, after an empty
 * line: a line that only starts with `From ` is a body's); a body line escaped as `>From ` (mboxrd) is unescaped. Each message's blocks
 * carry the message's lines in the mailbox, so a source names where it is (`inbox.mbox:1204–1262 › Re: launch`).
 */

import type { Address, Email, default as PostalMimeClass } from "postal-mime";
import { htmlToBlocks } from "./html-blocks.js";
import { paragraphBlocks } from "./plain-text.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

let postalMime: Promise<typeof PostalMimeClass> | undefined;
// Loaded on the first message: a folder without mail never pays for it. (Its CommonJS build, which the CLI's bundle
// loads, is the class itself; its ES build's default export is.)
const loadPostalMime = () => {
  postalMime ??= import("postal-mime").then(
    (module) =>
      (module as unknown as { default?: typeof PostalMimeClass }).default ??
      (module as unknown as typeof PostalMimeClass),
  );
  return postalMime;
};

// A mailbox's separator line: `From `, an address (or `MAILER-DAEMON`), then a date with a time of day.
const FROM_LINE = /^From \S+ +(?:.*\d\d:\d\d.*)$/;

/** Reads email: a message (`.eml`) or a mailbox (`.mbox`, `.mbx`; any file that starts with a `From ` line). */
export const emailReader: DocumentReader = {
  format: "email",
  extensions: [".eml", ".mbox", ".mbx"],
  async read({ bytes, path, limits, signal }: ReaderInput): Promise<ReadFileResult> {
    const messages = mailboxMessages(bytes);
    const blocks: DocumentBlock[] = [];
    let subject: string | undefined;
    let unreadable = 0;
    for (const message of messages) {
      signal?.throwIfAborted();
      let email: Email;
      try {
        email = await (await loadPostalMime()).parse(message.bytes, { maxNestingDepth: 64 });
      } catch {
        unreadable++;
        continue;
      }
      const read = await messageBlocks(email, limits.maxDepth);
      if (read.length === 0) continue;
      subject ??= email.subject?.trim() || undefined;
      for (const block of read) blocks.push(message.lines ? { ...block, lines: message.lines } : block);
    }
    if (blocks.length === 0) {
      throw new ReaderSkipError(
        unreadable > 0 ? "corrupt" : "empty",
        unreadable > 0
          ? `${path}: not a readable email message (MIME that does not parse).`
          : `${path}: no text in its ${messages.length === 1 ? "message" : `${messages.length} messages`}.`,
      );
    }
    const metadata: Record<string, string | number> =
      messages.length === 1 && messages[0]?.lines === undefined
        ? subject === undefined
          ? {}
          : { title: subject }
        : { message_count: messages.length };
    if (unreadable > 0) metadata.unreadable_messages = unreadable;
    return Object.keys(metadata).length > 0 ? { blocks, metadata } : { blocks };
  },
};

/**
 * The messages of a file: a mailbox's, cut at its separator lines (each with its 1-based lines in the file, `>From `
 * unescaped), or the file as one message.
 */
function mailboxMessages(bytes: Uint8Array): { bytes: Uint8Array; lines?: { start: number; end: number } }[] {
  const starts: { offset: number; line: number }[] = [];
  let line = 1;
  for (let offset = 0; offset < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, offset);
    const end = newline === -1 ? bytes.length : newline;
    if (bytes[offset] === 0x46 /* F */ && afterBlankLine(bytes, offset) && isFromLine(bytes, offset, end))
      starts.push({ offset, line });
    else if (starts.length === 0 && offset === 0) break; // the first line is no separator: one message
    offset = end + 1;
    line++;
  }
  if (starts.length === 0) return [{ bytes }];
  return starts.map((start, index) => {
    const next = starts[index + 1];
    const bodyStart = bytes.indexOf(0x0a, start.offset) + 1;
    const stop = next?.offset ?? bytes.length;
    const lastLine = (next?.line ?? line) - 1;
    return {
      bytes: unescapeFrom(bytes.subarray(bodyStart, stop)),
      lines: { start: start.line, end: Math.max(start.line, lastLine) },
    };
  });
}

/** Whether the line at `offset` is the file's first or follows an empty line (as a separator line does). */
function afterBlankLine(bytes: Uint8Array, offset: number): boolean {
  if (offset === 0) return true;
  const before = bytes[offset - 2] === 0x0d ? offset - 3 : offset - 2;
  return before < 0 || bytes[before] === 0x0a;
}

function isFromLine(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start < 12 || end - start > 500) return false;
  return FROM_LINE.test(new TextDecoder("latin1").decode(bytes.subarray(start, end)).trimEnd());
}

/** A message's bytes with each line `>From `, `>>From `… given back one `>` less (mboxrd's escape). */
function unescapeFrom(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  let changed = false;
  for (let index = 0; index < bytes.length; index++) {
    const atLineStart = index === 0 || bytes[index - 1] === 0x0a;
    if (atLineStart && bytes[index] === 0x3e /* > */) {
      let quotes = index;
      while (bytes[quotes] === 0x3e) quotes++;
      if (
        bytes[quotes] === 0x46 &&
        new TextDecoder("latin1").decode(bytes.subarray(quotes, quotes + 5)) === "From "
      ) {
        changed = true;
        continue; // this `>` is dropped
      }
    }
    out.push(bytes[index] as number);
  }
  return changed ? Uint8Array.from(out) : bytes;
}

/** One message's blocks: its subject, who wrote to whom and when, its text, its attachments' names. */
async function messageBlocks(email: Email, maxDepth: number): Promise<DocumentBlock[]> {
  const body: DocumentBlock[] = [];
  const text = email.text?.replace(/\r\n?/g, "\n");
  if (text?.trim()) {
    for (const block of paragraphBlocks(text)) body.push({ kind: block.kind, text: block.text });
  } else if (email.html?.trim()) {
    const read = await htmlToBlocks({ html: email.html, maxDepth, withLines: false });
    for (const block of read.blocks) body.push(block);
  }
  const attachments = email.attachments
    .filter((attachment) => !attachment.related && attachment.filename)
    .map((attachment) => `${attachment.filename} (${attachment.mimeType})`);
  if (body.length === 0 && attachments.length === 0 && !email.subject?.trim()) return [];
  const facts = [
    email.from && `From: ${addresses([email.from])}`,
    email.to?.length && `To: ${addresses(email.to)}`,
    email.cc?.length && `Cc: ${addresses(email.cc)}`,
    email.date && `Date: ${email.date}`,
  ].filter((fact): fact is string => typeof fact === "string");
  const blocks: DocumentBlock[] = [
    { kind: "heading", depth: 1, text: email.subject?.trim() || "(no subject)" },
  ];
  if (facts.length > 0) blocks.push({ kind: "paragraph", text: facts.join("\n") });
  for (const block of body) blocks.push(block);
  if (attachments.length > 0)
    blocks.push({ kind: "paragraph", text: `Attachments (not read): ${attachments.join(", ")}` });
  return blocks;
}

/** `Ada Lovelace <ada@example.com>, team: bob@example.com`. */
function addresses(list: readonly Address[]): string {
  const one = (mailbox: { name: string; address?: string | undefined }) =>
    mailbox.name && mailbox.address
      ? `${mailbox.name} <${mailbox.address}>`
      : mailbox.address || mailbox.name;
  return list
    .map((entry) => (entry.group ? `${entry.name}: ${entry.group.map(one).join(", ")}` : one(entry)))
    .join(", ");
}
