/**
 * A Bloom filter of request keys (types.ts `RequestKey`: two 53-bit hashes), 32 bits per key and three bits set
 * per key: it answers "no such key here" for all but about one key in 1,500 that is not there, with no false
 * "no". Each cache frame keeps one of its keys (cache.ts), so a run after a few files grew can tell that the
 * requests they gained are in no other file without reading every file's keys (update.ts).
 */

import type { StoredRegion } from "./stored-columns.ts";

/** Bits per key, and the filter's bounds (a power of two between them). */
const BITS_PER_KEY = 32;
const MIN_BITS = 1 << 10;
const MAX_BITS = 1 << 28;

export class KeyFilter {
  readonly words: Uint32Array;
  private readonly mask: number;

  /** An empty filter for `keys` keys, or (with `words`) a stored one. */
  constructor(keys: number, words?: Uint32Array) {
    this.words = words ?? new Uint32Array(KeyFilter.bitsFor(keys) / 32);
    this.mask = this.words.length * 32 - 1;
  }

  /** The bits a filter of `keys` keys has (a multiple of 32, so its words fill them). */
  static bitsFor(keys: number): number {
    let bits = MIN_BITS;
    while (bits < keys * BITS_PER_KEY && bits < MAX_BITS) bits *= 2;
    return bits;
  }

  add(hi: number, lo: number): void {
    this.addAll(Float64Array.of(hi), Float64Array.of(lo), 1);
  }

  /**
   * Adds the first `length` keys of two key columns. One loop over them, not a call per key, and the three bits
   * written out: a run adds thousands of keys in code not yet optimised, and the loop is what gets optimised.
   */
  addAll(keyHi: Float64Array, keyLo: Float64Array, length: number): void {
    const { words, mask } = this;
    for (let row = 0; row < length; row++) {
      const a = (keyLo[row] ?? 0) >>> 0;
      const b = (keyHi[row] ?? 0) >>> 0;
      const c = Math.imul(a ^ b, 0x9e3779b1) >>> 0;
      words[(a & mask) >>> 5] = (words[(a & mask) >>> 5] ?? 0) | (1 << (a & 31));
      words[(b & mask) >>> 5] = (words[(b & mask) >>> 5] ?? 0) | (1 << (b & 31));
      words[(c & mask) >>> 5] = (words[(c & mask) >>> 5] ?? 0) | (1 << (c & 31));
    }
  }

  /**
   * False when the key was never added; true when it was, or (rarely) when another key set its bits. The bits:
   * the two hashes' low 32 bits, and a mix of both.
   */
  mayHold(hi: number, lo: number): boolean {
    const { words, mask } = this;
    const a = lo >>> 0;
    const b = hi >>> 0;
    const c = Math.imul(a ^ b, 0x9e3779b1) >>> 0;
    return (
      ((words[(a & mask) >>> 5] ?? 0) & (1 << (a & 31))) !== 0 &&
      ((words[(b & mask) >>> 5] ?? 0) & (1 << (b & 31))) !== 0 &&
      ((words[(c & mask) >>> 5] ?? 0) & (1 << (c & 31))) !== 0
    );
  }
}

/**
 * Words per piece of a stored filter read at a time: 64 bytes. A key's three bits fall in three random places, so
 * a larger piece reads more bytes for the same one bit; what a read costs is the call, not its few bytes.
 */
const PAGE_WORDS = 16;

/**
 * A filter as a cache frame stores it, read a piece at a time as keys are looked up (a run after a few files grew
 * looks up a few hundred keys: a few hundred small reads instead of the megabytes a filter of every key takes).
 */
export class StoredKeyFilter {
  private readonly region: Pick<StoredRegion, "bytes">;
  private readonly mask: number;
  private readonly pages: (Uint32Array | undefined)[];

  /** `region`: the filter's `bits / 8` bytes. */
  constructor(bits: number, region: Pick<StoredRegion, "bytes">) {
    this.region = region;
    this.mask = bits - 1;
    this.pages = new Array(Math.ceil(bits / 32 / PAGE_WORDS));
  }

  /** As `KeyFilter.mayHold`. */
  mayHold(hi: number, lo: number): boolean {
    const mask = this.mask;
    const a = lo >>> 0;
    const b = hi >>> 0;
    const c = Math.imul(a ^ b, 0x9e3779b1) >>> 0;
    return this.has(a & mask) && this.has(b & mask) && this.has(c & mask);
  }

  private has(bit: number): boolean {
    const word = bit >>> 5;
    const index = Math.floor(word / PAGE_WORDS);
    let page = this.pages[index];
    if (page === undefined) {
      const bytes = this.region.bytes(index * PAGE_WORDS * 4, Math.min((index + 1) * PAGE_WORDS, (this.mask + 1) / 32) * 4);
      // Copied: a piece may start anywhere in the buffer it was read into (a Uint32Array must start 4-aligned).
      page = new Uint32Array(new Uint8Array(bytes).buffer);
      this.pages[index] = page;
    }
    return ((page[word - index * PAGE_WORDS] ?? 0) & (1 << (bit & 31))) !== 0;
  }
}
