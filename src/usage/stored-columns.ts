/**
 * A cache frame's columns, read from the open cache file as they are needed. A file's request keys are read when
 * first used (a run after a few files changed may need no key at all: cache.ts keeps a filter of them), with two
 * positioned reads; a file's other columns are one block of the frame (`blockBytes`), read with one positioned
 * read when first used. Once the files read one by one hold a share of the frame's records (`WHOLE_FRAME_SHARE`:
 * a run that merges everything, or looks every key up), the rest of the frame's keys or blocks is read in one go. A file's models and threads are in its entry (stored-scan.ts), parsed when first
 * used.
 */
import { readSync } from "node:fs";
import { type RecordColumns, TOKEN_FIELDS } from "./types.ts";

/** Where a frame's parts are in the file (cache.ts `layout`): byte offsets, each 8-aligned. */
export interface FrameLayout {
  readonly keyHi: number;
  readonly keyLo: number;
  /** The files' blocks, one after the other, in the header's order. */
  readonly blocks: number;
  readonly end: number;
  /** Records in the frame. */
  readonly length: number;
}

/** The open cache file: positioned reads until it is closed. */
export interface CacheFd {
  readonly fd: number;
  closed: boolean;
}

/** Columns other than the keys: a file's block. */
type Block = Pick<RecordColumns, "time" | "cost" | "tokens" | "model" | "flags">;

/** Bytes per record in a block: time, cost, the token counts (Float64), the model (Int32) and the flags (Uint8). */
const BLOCK_RECORD_BYTES = 8 * (2 + TOKEN_FIELDS) + 4 + 1;

/** A block of `length` records, padded to 8 so that the next one is aligned. */
export function blockBytes(length: number): number {
  return Math.ceil((BLOCK_RECORD_BYTES * length) / 8) * 8;
}

/** The columns of a block of `length` records at byte `offset` (8-aligned) of `buffer`. */
export function blockViews(buffer: ArrayBuffer, offset: number, length: number): Block {
  const f64 = 8 * length;
  return {
    time: new Float64Array(buffer, offset, length),
    cost: new Float64Array(buffer, offset + f64, length),
    tokens: new Float64Array(buffer, offset + 2 * f64, length * TOKEN_FIELDS),
    model: new Int32Array(buffer, offset + (2 + TOKEN_FIELDS) * f64, length),
    flags: new Uint8Array(buffer, offset + (2 + TOKEN_FIELDS) * f64 + 4 * length, length),
  };
}

/**
 * Past this share of a frame's records read file by file, the rest of the frame (its keys, or its blocks) is read
 * in one go: a run that merges everything, or looks every key up, reads them all anyway, and one read of a few MB
 * costs less than thousands of small ones. A run after some files grew reads theirs alone.
 */
const WHOLE_FRAME_SHARE = 0.125;

/** A file's two key columns. */
export interface Keys {
  readonly keyHi: Float64Array;
  readonly keyLo: Float64Array;
}

/**
 * A frame's request keys and blocks, read from the file as they are used: a file's keys with two positioned
 * reads, its block with one; once the files read that way hold `WHOLE_FRAME_SHARE` of the frame's records, the
 * rest of the keys (or of the blocks) in one read.
 */
export class FrameStore {
  private readonly file: CacheFd;
  private readonly at: FrameLayout;
  /** The frame's key columns, once read whole. */
  private keys: Keys | undefined;
  private keysReadByFile = 0;
  /** Every block of the frame, once read whole. */
  private blocks: ArrayBuffer | undefined;
  private readByFile = 0;

  constructor(file: CacheFd, at: FrameLayout) {
    this.file = file;
    this.at = at;
  }

  /** The keys of the `length` records from record `first`. */
  keysOf(first: number, length: number): Keys {
    if (this.keys === undefined) {
      this.keysReadByFile += length;
      if (this.keysReadByFile > WHOLE_FRAME_SHARE * this.at.length) {
        const both = readBytes(this.file, this.at.keyHi, this.at.blocks);
        this.keys = {
          keyHi: new Float64Array(both, 0, this.at.length),
          keyLo: new Float64Array(both, this.at.keyLo - this.at.keyHi, this.at.length),
        };
      }
    }
    if (this.keys !== undefined) {
      return { keyHi: this.keys.keyHi.subarray(first, first + length), keyLo: this.keys.keyLo.subarray(first, first + length) };
    }
    const column = (at: number): Float64Array => new Float64Array(readBytes(this.file, at + 8 * first, at + 8 * (first + length)));
    return { keyHi: column(this.at.keyHi), keyLo: column(this.at.keyLo) };
  }

  /** The block of `length` records at byte `block` of the file. */
  block(block: number, length: number): Block {
    if (this.blocks === undefined) {
      this.readByFile += length;
      if (this.readByFile > WHOLE_FRAME_SHARE * this.at.length) this.blocks = readBytes(this.file, this.at.blocks, this.at.end);
    }
    if (this.blocks !== undefined) return blockViews(this.blocks, block - this.at.blocks, length);
    return blockViews(readBytes(this.file, block, block + blockBytes(length)), 0, length);
  }
}

/**
 * A part of a frame other than its columns (its entries, its key filter), read piece by piece as it is used, and
 * whole once the pieces read add up to `WHOLE_FRAME_SHARE` of it: a run after a few files grew reads the entries
 * of those files and a few pages of the filter, not the megabytes of either.
 */
export class StoredRegion {
  private readonly file: CacheFd;
  private readonly start: number;
  private readonly end: number;
  private readonly share: number;
  private whole: Buffer | undefined;
  private readByPiece = 0;

  /** `share`: the part of the region read by pieces past which the rest is read whole. */
  constructor(file: CacheFd, start: number, end: number, share = WHOLE_FRAME_SHARE) {
    this.file = file;
    this.start = start;
    this.end = end;
    this.share = share;
  }

  get length(): number {
    return this.end - this.start;
  }

  /** Bytes `from…to` of the region. */
  bytes(from: number, to: number): Buffer {
    if (this.whole === undefined) {
      this.readByPiece += to - from;
      if (this.readByPiece > this.share * this.length) this.whole = Buffer.from(readBytes(this.file, this.start, this.end));
    }
    if (this.whole !== undefined) return this.whole.subarray(from, to);
    return Buffer.from(readBytes(this.file, this.start + from, this.start + to));
  }
}

/** The cache file's bytes from `start` to `end`, in a buffer of their own (aligned for any typed view). */
export function readBytes(file: CacheFd, start: number, end: number): ArrayBuffer {
  if (file.closed) throw new Error("usage cache: a column was read after the cache was closed (collect.ts closes it when done)");
  const out = new ArrayBuffer(end - start);
  const bytes = new Uint8Array(out);
  for (let done = 0; done < bytes.length; ) {
    const n = readSync(file.fd, bytes, done, bytes.length - done, start + done);
    // Frames are only ever appended, and a rewrite is a new file renamed over this one: a short read is a file
    // cut by something else, not a state of ours.
    if (n === 0) throw new Error("usage cache: the cache file was cut short while it was read");
    done += n;
  }
  return out;
}

/** A file's models and Codex threads: in its entry, parsed when first used (stored-scan.ts). */
export interface ColumnsEntry {
  readonly models: readonly string[];
  readonly threads?: readonly (string | null)[] | undefined;
}

/**
 * One file's columns in a loaded frame: the keys are views of the frame's, the rest is read when one of them is
 * first used (a run that merges only the files a change reaches reads most files' keys and nothing else), and
 * the models and threads come from the file's entry, parsed when first used too.
 */
export class StoredColumns implements RecordColumns {
  readonly length: number;
  private readonly frame: FrameStore;
  private readonly first: number;
  /** Byte offset of the file's block. */
  private readonly blockAt: number;
  private readonly owner: { readonly entry: ColumnsEntry };
  private keys: Keys | undefined;
  private loaded: Block | undefined;

  /** `owner`: the scan whose entry holds the models and threads (one object per file, not two). */
  constructor(frame: FrameStore, first: number, length: number, blockAt: number, owner: { readonly entry: ColumnsEntry }) {
    this.frame = frame;
    this.first = first;
    this.blockAt = blockAt;
    this.owner = owner;
    this.length = length;
  }

  get keyHi(): Float64Array {
    this.keys ??= this.frame.keysOf(this.first, this.length);
    return this.keys.keyHi;
  }
  get keyLo(): Float64Array {
    this.keys ??= this.frame.keysOf(this.first, this.length);
    return this.keys.keyLo;
  }

  get models(): readonly string[] {
    return this.owner.entry.models;
  }
  get threads(): readonly (string | null)[] | undefined {
    return this.owner.entry.threads;
  }
  private get block(): Block {
    this.loaded ??= this.frame.block(this.blockAt, this.length);
    return this.loaded;
  }
  get time(): Float64Array {
    return this.block.time;
  }
  get cost(): Float64Array {
    return this.block.cost;
  }
  get tokens(): Float64Array {
    return this.block.tokens;
  }
  get model(): Int32Array {
    return this.block.model;
  }
  get flags(): Uint8Array {
    return this.block.flags;
  }
}
