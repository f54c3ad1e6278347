/**
 * The skimmer's check of a string it may skip, run by a small WebAssembly module with SIMD (`_skim-scan.wat`,
 * its bytes in the generated `_skim-scan.wasm.ts`): 16 bytes at a time are tested for `"`, `\`, control bytes
 * and the anchor bytes of the caller's keywords, and only those bytes are handled one by one (an escape's
 * validity, a keyword's other bytes); the string's UTF-8 is then checked 16 bytes at a time too. The keywords are
 * data handed in (`SkipCheck.keywords`): the module's tables are made from them when a skimmer is made. It gives the verdicts of the JavaScript scan
 * (`scanString` in `_skim.ts`, which stays for where WebAssembly is not there): test/framing/ndjson/skim-native.test.ts.
 */
import { SKIM_SCAN_WASM_BASE64 } from "./_skim-scan.wasm.ts";

interface ScanExports {
  readonly memory: WebAssembly.Memory;
  scan(start: number, from: number, anchors: number): number;
  utf8(start: number, end: number): number;
  hits(): number;
  hitsAt(): number;
  resumeAt(): number;
  newlines(): number;
}

/** A keyword as the skimmer looks for it: its text, the index of the byte it is found from, and whether letters match in either case. */
export interface SkimKeyword {
  readonly text: string;
  readonly at: number;
  readonly ignoreCase: boolean;
}

/** Where the copied bytes start in the module's memory (below: its tables and the anchors that passed). */
const INPUT = 65536;
/** Where the keyword lists go, and where the found anchors start (see the .wat's Memory). */
const KEYWORD_LISTS = 544;
const HITS = 4096;
const PAGE = 65536;
/** Bytes read past the sentinel by the last 64-byte block. */
const LOAD_SLACK = 64;

export class NativeScanner {
  private readonly exports: ScanExports;
  private bytes: Uint8Array;
  private hitList: Uint32Array;
  /** The line whose bytes from `from` are in memory (one copy per line, however many strings it has). */
  private line: Uint8Array | undefined;
  private from = 0;

  constructor(exports: ScanExports) {
    this.exports = exports;
    this.bytes = new Uint8Array(exports.memory.buffer);
    this.hitList = new Uint32Array(exports.memory.buffer);
  }

  /** Line breaks written in the string last scanned (`\n`, `\u000a`), when it was valid. */
  newlines(): number {
    return this.exports.newlines();
  }

  /** Forgets the copied line (a caller may reuse a buffer for the next line). */
  forget(): void {
    this.line = undefined;
  }

  /**
   * Where the string whose text starts at `i` ends (its closing quote), or -1; the anchors that passed `near`
   * are pushed onto `seen` (indexes into `bytes`) when `anchors` is set.
   */
  stringEnd(bytes: Uint8Array, i: number, anchors: boolean, seen: number[]): number {
    if (this.line !== bytes || i < this.from) {
      if (this.isLineMemory(bytes)) this.adopt(bytes);
      else this.copy(bytes, i);
    }
    const offset = INPUT - this.from;
    let from = i + offset;
    for (;;) {
      const end = this.exports.scan(i + offset, from, anchors ? 1 : 0);
      const hits = this.exports.hits();
      if (hits > 0) {
        const at = this.exports.hitsAt() >>> 2;
        for (let k = 0; k < hits; k++) seen.push((this.hitList[at + k] as number) - offset);
      }
      if (end !== -2) return end < 0 || this.exports.utf8(i + offset, end) === 0 ? -1 : end - offset;
      from = this.exports.resumeAt();
    }
  }

  /**
   * Room for a line of `length` bytes where the scan reads its input, for the framer to join a long line
   * into: the scan then reads it where it is, with no copy. Valid until the next call here or the next copy
   * of another line (either may overwrite it, or grow the memory, which detaches the view).
   */
  lineMemory(length: number): Uint8Array {
    this.reserve(length);
    this.line = undefined;
    return this.bytes.subarray(INPUT, INPUT + length);
  }

  private isLineMemory(bytes: Uint8Array): boolean {
    return bytes.buffer === this.exports.memory.buffer && bytes.byteOffset === INPUT;
  }

  /** A line joined into `lineMemory` (maybe without its CR): only the sentinel after it is written. */
  private adopt(bytes: Uint8Array): void {
    this.bytes[INPUT + bytes.length] = 0;
    this.line = bytes;
    this.from = 0;
  }

  private reserve(length: number): void {
    const needed = INPUT + length + 1 + LOAD_SLACK;
    if (this.bytes.length < needed) {
      this.exports.memory.grow(Math.ceil((needed - this.bytes.length) / PAGE));
      this.bytes = new Uint8Array(this.exports.memory.buffer);
      this.hitList = new Uint32Array(this.exports.memory.buffer);
    }
  }

  private copy(bytes: Uint8Array, i: number): void {
    const length = bytes.length - i;
    this.reserve(length);
    this.bytes.set(i === 0 ? bytes : bytes.subarray(i), INPUT);
    this.bytes[INPUT + length] = 0; // the sentinel: a control byte ends every scan
    this.line = bytes;
    this.from = i;
  }
}

/**
 * A scanner for `keywords` (none: the scan checks syntax only), or undefined where WebAssembly (or its SIMD) is not
 * available or the keywords do not fit its memory: the JavaScript scan runs then.
 */
export function createNativeScanner(keywords: readonly SkimKeyword[]): NativeScanner | undefined {
  if (typeof WebAssembly !== "object" || typeof atob !== "function") return undefined;
  let instance: WebAssembly.Instance;
  try {
    const binary = atob(SKIM_SCAN_WASM_BASE64);
    const code = new Uint8Array(binary.length);
    for (let k = 0; k < binary.length; k++) code[k] = binary.charCodeAt(k);
    // Synchronous: the module is about 1 KB, under every engine's limit for compiling on the main thread.
    instance = new WebAssembly.Instance(new WebAssembly.Module(code));
  } catch {
    return undefined; // no SIMD in this engine: the JavaScript scan runs
  }
  const exports = instance.exports as unknown as ScanExports;
  return writeKeywords(new Uint8Array(exports.memory.buffer), keywords) ? new NativeScanner(exports) : undefined;
}

/**
 * Writes the tables of the anchors mode and the keyword lists (see the .wat's Memory); false when they do not fit.
 * The nibble tables: one bit per high half of an ASCII byte (2 to 7), set in the low-half entry of each special
 * byte (`"`, `\\`, an anchor) of that half; bit 0 in every low-half entry and the high halves 0 and 1 (control
 * bytes). The AND of a byte's two entries is then not 0 exactly for the special bytes and the control bytes (bytes
 * from 0x80 pass: the string's UTF-8 is checked apart, `utf8`).
 */
function writeKeywords(memory: Uint8Array, keywords: readonly SkimKeyword[]): boolean {
  const byAnchor = new Map<number, SkimKeyword[]>();
  for (const keyword of keywords) {
    const c = keyword.text.charCodeAt(keyword.at);
    for (const anchor of keyword.ignoreCase && /[a-z]/i.test(String.fromCharCode(c)) ? [c | 0x20, c & ~0x20] : [c]) {
      byAnchor.set(anchor, [...(byAnchor.get(anchor) ?? []), keyword]);
    }
  }
  const lo = memory.subarray(0, 16);
  const hi = memory.subarray(16, 32);
  lo.fill(1);
  hi.fill(0);
  hi.fill(1, 0, 2);
  for (const special of [0x22, 0x5c, ...byAnchor.keys()]) {
    const bit = 1 << ((special >> 4) - 1);
    lo[special & 15] = (lo[special & 15] as number) | bit;
    hi[special >> 4] = bit;
  }
  let at = KEYWORD_LISTS;
  const lists = new DataView(memory.buffer);
  for (const [anchor, list] of byAnchor) {
    lists.setUint16(32 + anchor * 2, at, true);
    for (const keyword of list) {
      if (at + 4 + keyword.text.length > HITS) return false;
      memory.set([keyword.text.length, keyword.at, keyword.ignoreCase ? 1 : 0], at);
      for (let k = 0; k < keyword.text.length; k++) memory[at + 3 + k] = keyword.text.charCodeAt(k);
      at += 3 + keyword.text.length;
    }
    memory[at++] = 0;
  }
  return true;
}
