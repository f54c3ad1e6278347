/**
 * Typed columns and strings packed one after the other in a buffer, each column 8-aligned so it is read back as
 * a view of the buffer (no copy, no parse); strings as one text with each string's length, decoded once and
 * sliced. For the caches `usage` reads on every run: JSON.parse of a header of thousands of files makes
 * thousands of objects that live to the end of the run, and copying them between the young generation's
 * spaces was a large part of a short run's time.
 */
import { closeSync, openSync, writevSync } from "node:fs";

/** How the strings' text is stored: UTF-8, or UTF-16 when a string holds a lone surrogate (UTF-8 cannot). */
export type TextEncoding = "utf8" | "utf16le";

const align = (n: number): number => Math.ceil(n / 8) * 8;

/** Strings as `Unpacker.strings` read them: their values, and their lengths and text as they were packed. */
export interface PackedStrings {
  readonly values: readonly string[];
  readonly lengths: Int32Array;
  readonly bytes: Buffer;
  readonly encoding: TextEncoding;
}

/** A surrogate without its other half (one linear scan: each alternative looks one code unit around). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Columns and string lists to pack, in the order they will be read. */
export class Packer {
  /** Each column: one typed array, or the arrays it is made of, written one after the other (`run`). */
  private readonly parts: (Column | readonly Column[])[] = [];

  /** A Float64Array is packed as it is (not copied until written). */
  f64(values: ArrayLike<number>): void {
    this.add(values instanceof Float64Array ? values : Float64Array.from(values));
  }

  i32(values: ArrayLike<number>): void {
    this.add(Int32Array.from(values));
  }

  u8(values: ArrayLike<number>): void {
    this.add(Uint8Array.from(values));
  }

  /**
   * The strings' lengths, then their text: UTF-8, or UTF-16 when the text holds a lone surrogate (UTF-8 would
   * replace it). Returns what `Unpacker.strings` needs besides the count.
   */
  strings(values: readonly string[]): { bytes: number; encoding: TextEncoding } {
    const text = values.join("");
    return this.packText(undefined, values, LONE_SURROGATE.test(text) ? "utf16le" : "utf8", text);
  }

  /**
   * Strings loaded (`Unpacker.strings`) and more after them, the loaded ones packed as they were read (not
   * encoded again), or undefined when `more` cannot be stored in the loaded text's encoding (a lone surrogate
   * after UTF-8 text): then pack them all with `strings`.
   */
  stringsAfter(loaded: PackedStrings, more: readonly string[]): { bytes: number; encoding: TextEncoding } | undefined {
    const text = more.join("");
    if (loaded.encoding === "utf8" && LONE_SURROGATE.test(text)) return undefined;
    return this.packText(loaded, more, loaded.encoding, text);
  }

  /** The lengths, then the text: `loaded`'s bytes as they are, then `text` (`more` joined) encoded. */
  private packText(loaded: PackedStrings | undefined, more: readonly string[], encoding: TextEncoding, text: string) {
    const lengths = new Int32Array((loaded?.lengths.length ?? 0) + more.length);
    if (loaded !== undefined) lengths.set(loaded.lengths);
    for (let i = 0, at = loaded?.lengths.length ?? 0; i < more.length; i++) lengths[at + i] = (more[i] as string).length;
    this.add(lengths);
    const bytes = Buffer.from(text, encoding);
    if (loaded === undefined) this.add(bytes);
    else this.run([loaded.bytes, bytes]);
    return { bytes: (loaded?.bytes.length ?? 0) + bytes.length, encoding };
  }

  /** The columns' bytes, each followed by the zeros that pad it to 8 (what `Unpacker` reads, in order). */
  chunks(): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const part of this.parts) {
      let length = 0;
      for (const chunk of Array.isArray(part) ? part : [part]) {
        out.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        length += chunk.byteLength;
      }
      const pad = align(length) - length;
      if (pad > 0) out.push(new Uint8Array(pad));
    }
    return out;
  }

  /** A typed column as it is (not copied until written). */
  add(part: Column): void {
    this.parts.push(part);
  }

  /**
   * One column made of `chunks`, written one after the other as they are (the loaded rows or text an update
   * kept, and what it added: not copied into one buffer first, a megabyte or two of fresh memory to fill).
   */
  run(chunks: readonly Column[]): void {
    this.parts.push(chunks);
  }
}

type Column = Float64Array | Int32Array | Uint8Array | Buffer;

/**
 * Writes the chunks one after the other to `path`, opened with `flags` ("w": made anew, mode 0600; "a": appended
 * to), in as few calls as it takes (a short write goes on from where it stopped).
 */
export function writeChunks(path: string, flags: "w" | "a", chunks: readonly Uint8Array[]): void {
  const fd = openSync(path, flags, 0o600);
  try {
    writeAll(fd, chunks);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, chunks: readonly Uint8Array[]): void {
  let left = chunks.filter((chunk) => chunk.length > 0);
  while (left.length > 0) {
    let written = writevSync(fd, left);
    let done = 0;
    while (done < left.length && written >= (left[done] as Uint8Array).length) written -= (left[done++] as Uint8Array).length;
    left = left.slice(done);
    if (written > 0 && left[0] !== undefined) left[0] = left[0].subarray(written);
  }
}

/** Reads what a `Packer` wrote, in the same order; a column past the end of the buffer throws. */
export class Unpacker {
  private readonly buffer: Buffer;
  private offset: number;

  /** `at` is 8-aligned in the buffer's memory. */
  constructor(buffer: Buffer, at: number) {
    this.buffer = buffer;
    this.offset = at;
  }

  f64(length: number): Float64Array {
    return new Float64Array(this.buffer.buffer, this.take(length * 8), length);
  }

  i32(length: number): Int32Array {
    return new Int32Array(this.buffer.buffer, this.take(length * 4), length);
  }

  u8(length: number): Uint8Array {
    return new Uint8Array(this.buffer.buffer, this.take(length), length);
  }

  /** `count` strings whose text takes `bytes` bytes. */
  strings(count: number, bytes: number, encoding: TextEncoding): PackedStrings {
    const lengths = this.i32(count);
    const start = this.take(bytes) - this.buffer.byteOffset;
    const text = this.buffer.toString(encoding, start, start + bytes);
    const values: string[] = new Array(count);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const length = lengths[i] ?? 0;
      values[i] = text.slice(at, at + length);
      at += length;
    }
    if (at !== text.length) throw new Error("packed strings: the lengths do not add up to the text");
    return { values, lengths, bytes: this.buffer.subarray(start, start + bytes), encoding };
  }

  /** The byte offset (in the buffer's memory) of the next `bytes` bytes, then moves past them. */
  private take(bytes: number): number {
    const at = this.buffer.byteOffset + this.offset;
    if (this.offset + bytes > this.buffer.length) throw new Error("packed columns: the buffer ends early");
    this.offset += align(bytes);
    return at;
  }
}
