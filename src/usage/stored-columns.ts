/**
 * A cache frame's columns, read from the open cache file as they are needed. The request keys of every file are
 * read when the frame is loaded (a run after a few files changed looks every key up to find the files the change
 * reaches); a file's other columns are one block of the frame (`blockBytes`), read with one positioned read when
 * first used, so such a run reads about a fifth of the cache. Once the files read one by one hold a share of the
 * frame's records (`WHOLE_FRAME_SHARE`: a run that merges everything), the rest of the frame is read in one go.
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

/** Past this share of a frame's records read file by file, the rest of the frame is read whole. */
const WHOLE_FRAME_SHARE = 0.125;

/** A file's place in its frame: its first record and count, and the byte offset of its block. */
export interface FilePlace {
  readonly first: number;
  readonly length: number;
  readonly block: number;
}

export class FrameStore {
  readonly keyHi: Float64Array;
  readonly keyLo: Float64Array;
  private readonly file: CacheFd;
  private readonly at: FrameLayout;
  /** Every block of the frame, once read whole. */
  private blocks: ArrayBuffer | undefined;
  private readByFile = 0;

  constructor(file: CacheFd, at: FrameLayout) {
    this.file = file;
    this.at = at;
    // keyHi and keyLo are one after the other: one read.
    const keys = this.read(at.keyHi, at.blocks);
    this.keyHi = new Float64Array(keys, 0, at.length);
    this.keyLo = new Float64Array(keys, at.keyLo - at.keyHi, at.length);
  }

  /** The block of the file at `place`. */
  block(place: FilePlace): Block {
    if (this.blocks === undefined) {
      this.readByFile += place.length;
      if (this.readByFile > WHOLE_FRAME_SHARE * this.at.length) this.blocks = this.read(this.at.blocks, this.at.end);
    }
    if (this.blocks !== undefined) return blockViews(this.blocks, place.block - this.at.blocks, place.length);
    return blockViews(this.read(place.block, place.block + blockBytes(place.length)), 0, place.length);
  }

  /** The file's bytes from `start` to `end`, in a buffer of their own (aligned for any typed view). */
  private read(start: number, end: number): ArrayBuffer {
    if (this.file.closed) throw new Error("usage cache: a column was read after the cache was closed (collect.ts closes it when done)");
    const out = new ArrayBuffer(end - start);
    const bytes = new Uint8Array(out);
    for (let done = 0; done < bytes.length; ) {
      const n = readSync(this.file.fd, bytes, done, bytes.length - done, start + done);
      // Frames are only ever appended, and a rewrite is a new file renamed over this one: a short read is a file
      // cut by something else, not a state of ours.
      if (n === 0) throw new Error("usage cache: the cache file was cut short while it was read");
      done += n;
    }
    return out;
  }
}

/**
 * One file's columns in a loaded frame: the keys are views of the frame's, the rest is read when one of them is
 * first used (a run that merges only the files a change reaches reads most files' keys and nothing else).
 */
export class StoredColumns implements RecordColumns {
  readonly length: number;
  readonly models: readonly string[];
  readonly threads?: readonly (string | null)[];
  readonly keyHi: Float64Array;
  readonly keyLo: Float64Array;
  private readonly frame: FrameStore;
  private readonly place: FilePlace;
  private loaded: Block | undefined;

  constructor(frame: FrameStore, place: FilePlace, models: readonly string[], threads: readonly (string | null)[] | undefined) {
    this.frame = frame;
    this.place = place;
    this.length = place.length;
    this.models = models;
    this.keyHi = frame.keyHi.subarray(place.first, place.first + place.length);
    this.keyLo = frame.keyLo.subarray(place.first, place.first + place.length);
    if (threads !== undefined) this.threads = threads;
  }

  private get block(): Block {
    this.loaded ??= this.frame.block(this.place);
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
