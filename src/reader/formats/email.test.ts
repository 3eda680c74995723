import { describe, expect, it } from "vitest";
import { emailReader } from "./email.js";
import { createReaderRegistry } from "./registry.js";
import { DEFAULT_READER_LIMITS, ReaderSkipError, type ReadFileResult } from "./types.js";

const read = async (text: string, path = "launch.eml") =>
  (await emailReader.read({
    bytes: new TextEncoder().encode(text),
    path,
    limits: DEFAULT_READER_LIMITS,
  })) as ReadFileResult;

// A message as mail programs save it: an encoded-word subject, a quoted-printable plain part beside an HTML one, and
// a base64 attachment.
const message = [
  "From: Ada Lovelace <ada@example.com>",
  "To: team@example.com, Bob <bob@example.com>",
  "Subject: =?utf-8?q?Launch_date_for_v2_=E2=80=94_moved?=",
  "Date: Tue, 02 Jan 2024 10:00:00 +0000",
  "MIME-Version: 1.0",
  'Content-Type: multipart/mixed; boundary="outer"',
  "",
  "--outer",
  'Content-Type: multipart/alternative; boundary="inner"',
  "",
  "--inner",
  "Content-Type: text/plain; charset=utf-8",
  "Content-Transfer-Encoding: quoted-printable",
  "",
  "Hi all,",
  "",
  "The launch of v2 moves to March 14 because the Postgres migration slipp=",
  "ed. Caf=C3=A9 at 10.",
  "",
  "--inner",
  "Content-Type: text/html; charset=utf-8",
  "",
  "<p>Hi all, the <b>launch</b> moves.</p>",
  "--inner--",
  "",
  "--outer",
  "Content-Type: application/pdf",
  'Content-Disposition: attachment; filename="plan.pdf"',
  "Content-Transfer-Encoding: base64",
  "",
  "JVBERi0xLjQgZmFrZQ==",
  "--outer--",
  "",
].join("\r\n");

describe("emailReader", () => {
  it("reads a message: its subject, who wrote to whom and when, its plain text, its attachments' names", async () => {
    const result = await read(message);
    expect(result.metadata).toEqual({ title: "Launch date for v2 — moved" });
    expect(result.blocks).toEqual([
      { kind: "heading", depth: 1, text: "Launch date for v2 — moved" },
      {
        kind: "paragraph",
        text: "From: Ada Lovelace <ada@example.com>\nTo: team@example.com, Bob <bob@example.com>\nDate: 2024-01-02T10:00:00.000Z",
      },
      { kind: "paragraph", text: "Hi all," },
      {
        kind: "paragraph",
        text: "The launch of v2 moves to March 14 because the Postgres migration slipped. Café at 10.",
      },
      { kind: "paragraph", text: "Attachments (not read): plan.pdf (application/pdf)" },
    ]);
  });

  it("reads a mailbox message by message, each with its lines; a body's From line is no separator, >From is unescaped", async () => {
    const mailbox = [
      "From ada@example.com Tue Jan  2 10:00:00 2024",
      "From: ada@example.com",
      "Subject: Launch",
      "",
      "From the start we said March.",
      ">From now on, file bugs in the tracker.",
      "",
      "From bob@example.com Wed Jan  3 09:30:00 2024",
      "From: bob@example.com",
      "Subject: Re: Launch",
      "Content-Type: text/html",
      "",
      "<p>Will the <i>docs</i> be ready?</p>",
      "",
    ].join("\n");
    const result = await read(mailbox, "inbox.mbox");
    expect(result.metadata).toEqual({ message_count: 2 });
    expect(result.blocks.map((block) => [block.lines, block.kind, block.text])).toEqual([
      [{ start: 1, end: 7 }, "heading", "Launch"],
      [{ start: 1, end: 7 }, "paragraph", "From: ada@example.com"],
      [
        { start: 1, end: 7 },
        "paragraph",
        "From the start we said March.\nFrom now on, file bugs in the tracker.",
      ],
      [{ start: 8, end: 13 }, "heading", "Re: Launch"],
      [{ start: 8, end: 13 }, "paragraph", "From: bob@example.com"],
      [{ start: 8, end: 13 }, "paragraph", "Will the docs be ready?"],
    ]);
    const registry = createReaderRegistry();
    for (const name of ["a.eml", "Inbox.MBOX", "b.mbx", "inbox.mbox.gz"])
      expect(registry.readerFor(name)?.reader.format, name).toBe(name.endsWith(".gz") ? "gzip" : "email");
  });

  it("says when a message has no text", async () => {
    let error: unknown;
    try {
      await read("From: a@example.com\r\nTo: b@example.com\r\n\r\n   \r\n");
    } catch (caught) {
      error = caught;
    }
    expect(ReaderSkipError.isInstance(error) && [error.code, error.message]).toEqual([
      "empty",
      "launch.eml: no text in its message.",
    ]);
  });
});
