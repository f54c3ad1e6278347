/**
 * A cache frame's columns, read from the open cache file as they are needed. The request keys of every file are
 * read when the frame is loaded (a run after a few files changed looks every key up to find the files the change
 * reaches); the other columns are read per file when first used, with a few positioned reads, so such a run reads
 * about a fifth of the cache. Once the files read one by one hold a share of the frame's records
 * (`WHOLE_FRAME_SHARE`: a run that merges everything), the rest of the frame is read in one go instead.
 */
import { readSync } from "node:fs";
import { type RecordColumns, TOKEN_FIELDS } from "./types.ts";

/** Where a frame's columns are in the file (cache.ts `layout`): byte offsets, each 8-aligned. */
export interface FrameLayout {
  readonly keyHi: number;
  readonly keyLo: number;
  readonly time: number;
  readonly cost: number;
  readonly tokens: number;
  readonly model: number;
  readonly flags: number;
  readonly end: number;
}

/** The open cache file: positioned reads until it is closed. */
export interface CacheFd {
  readonly fd: number;
  closed: boolean;
}

/** Columns other than the keys: those read per file. */
type Rest = Pick<RecordColumns, "time" | "cost" | "tokens" | "model" | "flags">;

/** Past this share of a frame's records read file by file, the rest of the frame is read whole. */
const WHOLE_FRAME_SHARE = 0.125;

export class FrameStore {
  readonly keyHi: Float64Array;
  readonly keyLo: Float64Array;
  private readonly file: CacheFd;
  private readonly at: FrameLayout;
  private readonly length: number;
  private whole: Rest | undefined;
  private readByFile = 0;

  constructor(file: CacheFd, at: FrameLayout, length: number) {
    this.file = file;
    this.at = at;
    this.length = length;
    // keyHi and keyLo are one after the other: one read.
    const keys = this.read(at.keyHi, at.time);
    this.keyHi = new Float64Array(keys, 0, length);
    this.keyLo = new Float64Array(keys, at.keyLo - at.keyHi, length);
  }

  /** Rows `first` to `first + length` of every column but the keys. */
  rest(first: number, length: number): Rest {
    if (this.whole === undefined) {
      this.readByFile += length;
      if (this.readByFile > WHOLE_FRAME_SHARE * this.length) this.whole = this.readWhole();
    }
    if (this.whole !== undefined) {
      const w = this.whole;
      const end = first + length;
      return {
        time: w.time.subarray(first, end),
        cost: w.cost.subarray(first, end),
        tokens: w.tokens.subarray(first * TOKEN_FIELDS, end * TOKEN_FIELDS),
        model: w.model.subarray(first, end),
        flags: w.flags.subarray(first, end),
      };
    }
    const f64 = (column: number, width = 1) =>
      new Float64Array(this.read(column + 8 * first * width, column + 8 * (first + length) * width));
    return {
      time: f64(this.at.time),
      cost: f64(this.at.cost),
      tokens: f64(this.at.tokens, TOKEN_FIELDS),
      model: new Int32Array(this.read(this.at.model + 4 * first, this.at.model + 4 * (first + length))),
      flags: new Uint8Array(this.read(this.at.flags + first, this.at.flags + first + length)),
    };
  }

  private readWhole(): Rest {
    const { at, length } = this;
    const bytes = this.read(at.time, at.end);
    const view = (offset: number) => offset - at.time;
    return {
      time: new Float64Array(bytes, view(at.time), length),
      cost: new Float64Array(bytes, view(at.cost), length),
      tokens: new Float64Array(bytes, view(at.tokens), length * TOKEN_FIELDS),
      model: new Int32Array(bytes, view(at.model), length),
      flags: new Uint8Array(bytes, view(at.flags), length),
    };
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
  private readonly first: number;
  private loaded: Rest | undefined;

  constructor(
    frame: FrameStore,
    first: number,
    length: number,
    models: readonly string[],
    threads: readonly (string | null)[] | undefined,
  ) {
    this.frame = frame;
    this.first = first;
    this.length = length;
    this.models = models;
    this.keyHi = frame.keyHi.subarray(first, first + length);
    this.keyLo = frame.keyLo.subarray(first, first + length);
    if (threads !== undefined) this.threads = threads;
  }

  private get rest(): Rest {
    this.loaded ??= this.frame.rest(this.first, this.length);
    return this.loaded;
  }
  get time(): Float64Array {
    return this.rest.time;
  }
  get cost(): Float64Array {
    return this.rest.cost;
  }
  get tokens(): Float64Array {
    return this.rest.tokens;
  }
  get model(): Int32Array {
    return this.rest.model;
  }
  get flags(): Uint8Array {
    return this.rest.flags;
  }
}
