/**
 * Strict UTF-8 for payload files. Node's decoder turns an invalid byte into U+FFFD, so a Latin-1 file would be
 * applied with its text silently changed; upstream's YAML reader refuses such a file instead.
 * @internal
 */
import { isUtf8 } from "node:buffer";

/** A file that is not UTF-8: where its first invalid byte is. The loader adds the file name. */
export class InvalidUtf8Error extends Error {
  constructor(
    /** 0-based offset of the first byte that does not belong to valid UTF-8. */
    readonly offset: number,
    /** 1-based line of that byte. */
    readonly line: number,
  ) {
    super(`invalid UTF-8 at byte offset ${offset} (line ${line})`);
    this.name = "InvalidUtf8Error";
  }
}

/** The text of `bytes`; throws {@link InvalidUtf8Error} unless they are valid UTF-8. */
export function decodeUtf8(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  const offset = firstInvalidByte(bytes);
  let line = 1;
  for (let nl = bytes.indexOf(10); nl >= 0 && nl < offset; nl = bytes.indexOf(10, nl + 1)) line++;
  throw new InvalidUtf8Error(offset, line);
}

/** The offset of the first replacement character the decoder made up (one the input does not spell EF BF BD). */
function firstInvalidByte(bytes: Buffer): number {
  let offset = 0;
  for (const ch of bytes.toString("utf8")) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp === 0xfffd && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
    offset += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return offset;
}
