// How much of a file is looked at for NUL bytes before it is decoded: git and ripgrep sniff the first 8 KiB too.
const SNIFF_BYTES = 8192;

/**
 * Whether a file whose first bytes are `head` is binary: a NUL byte in its first 8 KiB and no UTF-16 byte-order
 * mark. Lets the walk pass over a large binary without reading it whole.
 */
export function looksBinary(head: Uint8Array): boolean {
  return utf16Encoding(head) === undefined && head.subarray(0, SNIFF_BYTES).includes(0);
}

/** How many first bytes {@link looksBinary} looks at. */
export const SNIFF_LENGTH = SNIFF_BYTES;

function utf16Encoding(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}
