/**
 * The skimmer's check of a string it may skip, run by a small WebAssembly module with SIMD (`_skim-scan.wat`,
 * its bytes in the generated `_skim-scan.wasm.ts`): 16 bytes at a time are tested for `"`, `\`, control bytes
 * and the secret check's anchors, and only those bytes are handled one by one (an escape's validity, an
 * anchor's neighbour tests). Non-ASCII bytes are passed over: their UTF-8 is checked by the caller's native
 * validator, as in the JavaScript scan it replaces (`scanString` in `_skim.ts`, which stays for where
 * WebAssembly is not there). Same verdicts: test/framing/ndjson/skim-native.test.ts.
 */
import { SKIM_SCAN_WASM_BASE64 } from "./_skim-scan.wasm.ts";

interface ScanExports {
  readonly memory: WebAssembly.Memory;
  scan(start: number, from: number, anchors: number): number;
  hits(): number;
  hitsAt(): number;
  resumeAt(): number;
  newlines(): number;
}

/** Where the copied bytes start in the module's memory (below: its tables and the anchors that passed). */
const INPUT = 65536;
const PAGE = 65536;
/** Bytes read past the sentinel by the last 64-byte block. */
const LOAD_SLACK = 64;

class NativeScanner {
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
      if (end !== -2) return end < 0 ? -1 : end - offset;
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

/** The scanner: null until first asked for, then made, or undefined where WebAssembly (or its SIMD) is not available. */
let scanner: NativeScanner | null | undefined = null;

export function nativeScanner(): NativeScanner | undefined {
  if (scanner === null) scanner = instantiate();
  return scanner;
}

function instantiate(): NativeScanner | undefined {
  if (typeof WebAssembly !== "object" || typeof atob !== "function") return undefined;
  try {
    const binary = atob(SKIM_SCAN_WASM_BASE64);
    const code = new Uint8Array(binary.length);
    for (let k = 0; k < binary.length; k++) code[k] = binary.charCodeAt(k);
    // Synchronous: the module is about 1 KB, under every engine's limit for compiling on the main thread.
    const instance = new WebAssembly.Instance(new WebAssembly.Module(code));
    return new NativeScanner(instance.exports as unknown as ScanExports);
  } catch {
    return undefined; // no SIMD in this engine: the JavaScript scan runs
  }
}
