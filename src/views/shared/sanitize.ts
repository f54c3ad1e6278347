/**
 * Neutralises untrusted text (agent messages, tool output, tool names, non-JSON lines) before it
 * reaches a terminal. An ECMA-48 / DEC escape-sequence parser (a small state machine in the shape
 * of Paul Williams' vt100.net parser), not a regular expression: it walks the text, delimits every
 * escape sequence, and writes what it does not deliberately keep in a visible form.
 *
 * - C0 controls (but LF and TAB) become Control Pictures (ESC → ␛, BEL → ␇, CR → ␍), DEL → ␡;
 *   CR LF is a line break.
 * - An escape sequence is shown as ␛ followed by its remaining characters, themselves made visible,
 *   so nothing can set the title, write the clipboard (OSC 52), move the cursor, switch modes,
 *   or hide text. An unterminated OSC/DCS/APC neutralises only its introducer: the text after it
 *   is shown, never swallowed.
 * - C1 controls (U+0080–U+009F, including the 8-bit CSI U+009B and OSC U+009D), bidi overrides
 *   and isolates, zero-width and other invisible format characters and Unicode tag characters
 *   become `<U+XXXX>`; lone surrogates become U+FFFD; more than 4 stacked combining marks are cut.
 * - `sgr: "keep"` re-emits complete 7-bit SGR colour sequences (`ESC [ 0-9;: m`, at most 64
 *   parameter characters, conceal removed) and nothing else, and `end()` closes them with
 *   `ESC [ 0 m`; `sgr: "drop"` removes them silently.
 * - `link` turns a well-formed OSC 8 hyperlink to an http(s) URL into what `link(url)` returns
 *   (we re-emit our own link, never theirs); the closing OSC 8 is consumed.
 *
 * It streams: `createSanitizer()` keeps its state across chunks (a sequence split between two
 * deltas, a CR before an LF, a surrogate pair), and costs O(length of the chunk) per chunk.
 * See ../shared/docs/security-terminal-escapes.md and docs/render.md.
 */

/** What the sanitizer does with the escape sequences it may keep. */
export interface SanitizeOptions {
  /** `visible` (default): show SGR like any other sequence; `keep`: re-emit complete SGR; `drop`: remove complete SGR. */
  sgr?: "visible" | "keep" | "drop";
  /** Keep LF as a line break (true) or show it as ⏎ and TAB as a space, for one-line slots (false). @defaultValue true */
  keepNewlines?: boolean;
  /** When set, a complete OSC 8 link to a well-formed http(s) URL becomes `link(url)`; its closing OSC 8 is removed. */
  link?: (url: string) => string;
}

/** A streaming sanitizer: feed chunks of one field in order, then `end()`. */
export interface TerminalSanitizer {
  /** Sanitises the next chunk; may hold back an incomplete escape sequence, CR or surrogate until the next one. */
  write(chunk: string): string;
  /** Returns whatever was held back, made visible, and resets the state. */
  end(): string;
  /** True when kept SGR was emitted since the last `takeStyled()`: the caller must reset styles before its own text. */
  takeStyled(): boolean;
}

/** Parser states (numbers, not an enum: erasable syntax only). */
const State = {
  /** Text. */
  Ground: 0,
  /** After ESC. */
  Escape: 1,
  /** ESC followed by intermediates 0x20–0x2F (nF: charset designation and friends). */
  EscapeIntermediate: 2,
  /** CSI: parameters, then intermediates, then the final byte. */
  Csi: 3,
  /** OSC: until BEL or ST. */
  Osc: 4,
  /** DCS, SOS, PM, APC: until ST. */
  String: 5,
  /** Inside OSC or a string, after ESC: `\` ends it (ST). */
  StringEscape: 6,
} as const;
type ParserState = (typeof State)[keyof typeof State];

/** Longest sequence we hold back when its ending could change what we emit; longer ones are shown. */
const MAX_HELD = 4096;
/** Longest SGR parameter string we re-emit (longer is a parameter flood: shown). */
const MAX_SGR_PARAMS = 64;
/** Combining marks kept on one base character. */
const MAX_COMBINING = 4;

/** Characters that need the slow path: C0 (but TAB and LF), DEL, C1, invisible format characters, surrogates. */
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/;
/** The same class, global: finds where the next run of ordinary text ends, so runs are copied whole. */
const NEXT_WORK = new RegExp(NEEDS_WORK.source, "g");
/** Text `passesUnchanged` lets through at once: printable ASCII, with LF and TAB where lines are kept (or not). */
const PRINTABLE_LINES = /^[\x20-\x7e\n\t]*$/;
const PRINTABLE_ROW = /^[\x20-\x7e]*$/;
/** A run of combining marks long enough to be cut. */
const COMBINING_FLOOD = /\p{M}{5}/u;
const COMBINING = /\p{M}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

/** Creates a streaming sanitizer for one field. */
export function createSanitizer(options: SanitizeOptions = {}): TerminalSanitizer {
  const sanitizer = new Sanitizer(options);
  return {
    write: sanitizer.write.bind(sanitizer),
    end() {
      let out = "";
      if (sanitizer.pendingCR) out += sanitizer.visible(0x0d);
      if (sanitizer.pendingHigh !== "") out += "\ufffd";
      out += sanitizer.flushZwj();
      if (sanitizer.seq !== "") out += sanitizer.showAll(sanitizer.seq);
      if (sanitizer.open) out += "\x1b[0m";
      sanitizer.open = false;
      sanitizer.state = State.Ground;
      sanitizer.seq = "";
      sanitizer.pendingCR = false;
      sanitizer.pendingHigh = "";
      sanitizer.combining = 0;
      sanitizer.lastBase = "";
      return out;
    },
    takeStyled() {
      const was = sanitizer.styled;
      sanitizer.styled = false;
      return was;
    },
  };
}

/** The parser's state across chunks, and one method per parser state. */
class Sanitizer {
  readonly options: SanitizeOptions;
  readonly sgr: "visible" | "keep" | "drop";
  readonly keepNewlines: boolean;
  readonly link: ((url: string) => string) | undefined;
  /** Sequences whose ending matters: hold them back across chunks instead of showing them at once. */
  readonly holding: boolean;

  state: ParserState = State.Ground;
  /** The sequence so far (only while `holding`). */
  seq = "";
  pendingCR = false;
  pendingHigh = "";
  combining = 0;
  /** The last code point written in ground state, for the ZWJ-between-emoji rule. */
  lastBase = "";
  /** A ZWJ waiting for the next character to decide whether it joins two pictographs. */
  pendingZwj = false;
  styled = false;
  /** Kept SGR was written in this field and not reset yet: `end()` closes it with ESC [ 0 m. */
  open = false;
  /** Set by a state that ends at the current character: the new state reads it again. */
  reread = false;

  constructor(options: SanitizeOptions = {}) {
    this.options = options;
    this.sgr = this.options.sgr ?? "visible";
    this.keepNewlines = this.options.keepNewlines ?? true;
    this.link = this.options.link;
    this.holding = this.sgr !== "visible" || this.link !== undefined;
  }

  visible(c: number): string {
    if (c === 0x0a) return this.keepNewlines ? "\n" : "\u23ce";
    if (c === 0x09) return this.keepNewlines ? "\t" : " ";
    if (c < 0x20) return String.fromCharCode(0x2400 + c);
    if (c === 0x7f) return "\u2421";
    return `<U+${c.toString(16).toUpperCase().padStart(4, "0")}>`;
  }

  /** Shows text held as a sequence: every character visible. */
  showAll(text: string): string {
    let out = "";
    for (let i = 0; i < text.length; i++) out += this.char(text.charCodeAt(i), text[i] as string);
    return out;
  }

  /** One character inside an escape sequence, in a visible form. */
  char(c: number, ch: string): string {
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || isInvisible(c)) return this.visible(c);
    return ch;
  }

  /** Ends the sequence in `seq` (complete) and returns its output. */
  finishSequence(complete: string): string {
    this.state = State.Ground;
    this.seq = "";
    if (complete.charCodeAt(1) === 0x5b) {
      // CSI: keep or drop SGR, show the rest.
      const params = complete.slice(2, -1);
      if (complete.endsWith("m") && params.length <= MAX_SGR_PARAMS && /^[0-9;:]*$/.test(params)) {
        if (this.sgr === "drop") return "";
        if (this.sgr === "keep") {
          const kept = filterSgr(params);
          if (kept === undefined) return "";
          this.styled = true;
          this.open = kept !== "0";
          return `\x1b[${kept}m`;
        }
      }
    } else if (this.link !== undefined && complete.charCodeAt(1) === 0x5d && complete.startsWith("\x1b]8;")) {
      // OSC 8 ; params ; URI ST: ours to re-emit when the URI is a well-formed http(s) URL.
      const body = complete.slice(4, complete.endsWith("\x07") ? -1 : -2);
      const semi = body.indexOf(";");
      if (semi !== -1) {
        const uri = body.slice(semi + 1);
        if (uri === "") return "";
        const safe = safeHttpUrl(uri);
        if (safe !== undefined) return this.link(safe);
      }
    }
    return this.showAll(complete);
  }

  write(chunk: string): string {
    if (chunk === "") return "";
    if (this.passesUnchanged(chunk)) return chunk;
    if (this.canPassThrough(chunk)) return this.passThrough(chunk);
    const text = this.pendingHigh + chunk;
    this.pendingHigh = "";
    let out = "";
    for (let i = 0; i < text.length; i++) {
      // Ordinary text between special characters is copied as one slice, not character by
      // character (tool output full of colour codes would otherwise cost a string append per character).
      if (this.state === State.Ground && !this.pendingCR && !this.pendingZwj && this.combining === 0) {
        const run = this.plainRun(text, i);
        if (run !== undefined) {
          out += run;
          i += run.length - 1;
          continue;
        }
      }
      let c = text.charCodeAt(i);
      let ch = text[i] as string;
      // Surrogates: pair them, or show U+FFFD; a high surrogate at the end waits for the next chunk.
      if (c >= 0xd800 && c <= 0xdbff) {
        if (i + 1 >= text.length) {
          this.pendingHigh = ch;
          break;
        }
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          ch = text.slice(i, i + 2);
          c = ch.codePointAt(0) as number;
          i++;
        } else {
          ch = "\ufffd";
          c = 0xfffd;
        }
      } else if (c >= 0xdc00 && c <= 0xdfff) {
        ch = "\ufffd";
        c = 0xfffd;
      }
      if (this.pendingCR) {
        this.pendingCR = false;
        if (c === 0x0a && this.state === State.Ground) {
          out += this.visible(0x0a);
          this.lastBase = "";
          continue;
        }
        out += this.visible(0x0d);
      }
      out += this.step(c, ch);
      if (this.reread) {
        // The character ended what was open and starts something else: read it again in the new state.
        this.reread = false;
        i -= ch.length;
      }
    }
    return out;
  }

  /**
   * Most streamed text, in one pass over its characters: printable text (LF and
   * TAB too where lines are kept), surrogate pairs, a ZWJ between two pictographs (👩‍💻), no combining mark,
   * and no state carried in. Such a chunk comes out of the parser as it went in; true, with `lastBase` set
   * as the parser would leave it. False, with nothing changed, for any other chunk.
   */
  passesUnchanged(chunk: string): boolean {
    if (this.state !== State.Ground || this.pendingCR || this.pendingHigh !== "" || this.pendingZwj || this.combining !== 0) return false;
    // Printable ASCII (and LF, TAB where lines are kept) is most text: one native scan, a third of the loop's time.
    if (!(this.keepNewlines ? PRINTABLE_LINES : PRINTABLE_ROW).test(chunk) && !this.passesCharByChar(chunk)) return false;
    const last = elementBefore(chunk, chunk.length);
    this.lastBase = last === "\n" || last === "\t" ? "" : last;
    return true;
  }

  /** `passesUnchanged`'s test of each character, for text that is not all printable ASCII. */
  passesCharByChar(chunk: string): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c >= 0x20 && c < 0x7f) continue;
      if (c === 0x0a || c === 0x09) {
        if (!this.keepNewlines) return false;
      } else if (c >= 0xd800 && c <= 0xdbff) {
        if (i + 1 === chunk.length) return false; // a high surrogate waiting for its pair (no read past the end: it deoptimises)
        const next = chunk.charCodeAt(i + 1);
        if (!(next >= 0xdc00 && next <= 0xdfff) || !isPlainAstral(((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000)) return false;
        i++;
      } else if (c === 0x200d) {
        // Kept only between two pictographs: the one before (a ZWJ first in the chunk depends on the last one) and after.
        if (i === 0 || i + 1 === chunk.length || !PICTOGRAPHIC.test(elementBefore(chunk, i)) || !PICTOGRAPHIC.test(elementAt(chunk, i + 1)))
          return false;
      } else if (c < 0xa0 || isInvisible(c) || (c >= 0xdc00 && c <= 0xdfff) || (c >= 0x300 && isMark(c))) return false;
    }
    return true;
  }

  /** A chunk with nothing to neutralise and no state carried in: returned as it is. */
  canPassThrough(chunk: string): boolean {
    return (
      this.state === State.Ground &&
      !this.pendingCR &&
      this.pendingHigh === "" &&
      !this.pendingZwj &&
      this.combining === 0 &&
      !NEEDS_WORK.test(chunk) &&
      (this.keepNewlines || (!chunk.includes("\n") && !chunk.includes("\t"))) &&
      !COMBINING_FLOOD.test(chunk)
    );
  }

  passThrough(chunk: string): string {
    this.lastBase = chunk[chunk.length - 1] as string;
    // A run of combining marks may go on in the next chunk: carry its length.
    let end = chunk.length;
    while (end > 0 && COMBINING.test(chunk[end - 1] as string)) end--;
    this.combining = chunk.length - end;
    if (this.combining > 0) this.lastBase = "";
    return chunk;
  }

  /** The run of ordinary text at `i` (two characters or more) to copy whole, else undefined. */
  plainRun(text: string, i: number): string | undefined {
    NEXT_WORK.lastIndex = i;
    const special = NEXT_WORK.exec(text);
    const stop = special === null ? text.length : special.index;
    if (stop - i <= 1) return undefined;
    const run = text.slice(i, stop);
    if (COMBINING_FLOOD.test(run) || !(this.keepNewlines || (!run.includes("\n") && !run.includes("\t")))) return undefined;
    let end = run.length;
    while (end > 0 && COMBINING.test(run[end - 1] as string)) end--;
    this.combining = run.length - end;
    this.lastBase = this.combining > 0 ? "" : (run[run.length - 1] as string);
    if (run.includes("\n")) this.lastBase = run.endsWith("\n") ? "" : this.lastBase;
    return run;
  }

  /** One character (a code point) in the parser's current state; sets `reread` when the next state must read it again. */
  step(c: number, ch: string): string {
    switch (this.state) {
      case State.Ground:
        return this.inGround(c, ch);
      case State.Escape:
        return this.inEscape(c, ch);
      case State.EscapeIntermediate:
        return this.inEscapeIntermediate(c, ch);
      case State.Csi:
        return this.inCsi(c, ch);
      case State.Osc:
      case State.String:
        return this.inString(c, ch);
      case State.StringEscape:
        return this.inStringEscape(c, ch);
    }
  }

  inGround(c: number, ch: string): string {
    if (c === 0x1b) {
      const out = this.flushZwj();
      this.state = State.Escape;
      this.combining = 0;
      if (this.holding) {
        this.seq = ch;
        return out;
      }
      return out + this.visible(c);
    }
    if (c === 0x9b || c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) {
      // 8-bit CSI / OSC / DCS / SOS / PM / APC: never kept, always shown; the state machine still delimits them.
      const out = this.flushZwj() + this.visible(c);
      this.state = c === 0x9b ? State.Csi : c === 0x9d ? State.Osc : State.String;
      this.combining = 0;
      return out;
    }
    if (c === 0x0d) {
      const out = this.flushZwj();
      this.pendingCR = true;
      this.combining = 0;
      return out;
    }
    return this.ground(c, ch);
  }

  inEscape(c: number, ch: string): string {
    let out = "";
    if (this.holding) this.seq += ch;
    else out += this.char(c, ch);
    if (c === 0x5b) this.state = State.Csi;
    else if (c === 0x5d) this.state = State.Osc;
    else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.state = State.String;
    else if (c >= 0x20 && c <= 0x2f) this.state = State.EscapeIntermediate;
    else if (c === 0x1b) {
      // ESC ESC: the first one was a lone ESC; the second starts again.
      if (this.holding) {
        out += this.showAll(this.seq.slice(0, -1));
        this.seq = ch;
      }
    } else if (c >= 0x30 && c <= 0x7e) {
      if (this.holding) out += this.finishSequence(this.seq);
      else this.state = State.Ground;
    } else {
      // A lone ESC before anything else: it was shown; go on in ground.
      if (this.holding) out += this.showAll(this.seq);
      this.seq = "";
      this.state = State.Ground;
    }
    return out;
  }

  inEscapeIntermediate(c: number, ch: string): string {
    let out = "";
    if (this.holding) this.seq += ch;
    else out += this.char(c, ch);
    if (c >= 0x30 && c <= 0x7e) {
      if (this.holding) out += this.finishSequence(this.seq);
      else this.state = State.Ground;
    } else if (!(c >= 0x20 && c <= 0x2f)) {
      if (this.holding) out += this.showAll(this.seq);
      this.seq = "";
      this.state = State.Ground;
    }
    return out;
  }

  inCsi(c: number, ch: string): string {
    let out = "";
    if (c >= 0x40 && c <= 0x7e) {
      if (this.holding && this.seq !== "") out += this.finishSequence(this.seq + ch);
      else {
        out += this.char(c, ch);
        this.state = State.Ground;
        this.seq = "";
      }
    } else if (c >= 0x20 && c <= 0x3f) {
      if (this.holding && this.seq !== "") this.seq += ch;
      else out += ch;
    } else {
      // Not part of a CSI (a control, or text): the sequence was malformed; show it and go on.
      if (this.holding && this.seq !== "") out += this.showAll(this.seq);
      this.seq = "";
      this.state = State.Ground;
      this.reread = true; // re-read this character in ground
      return out;
    }
    if (this.seq.length > MAX_HELD) {
      out += this.showAll(this.seq);
      this.seq = "";
      this.state = State.Ground;
    }
    return out;
  }

  /** OSC, DCS, SOS, PM, APC: until BEL (OSC only) or ST. */
  inString(c: number, ch: string): string {
    let out = "";
    if (c === 0x1b) {
      this.state = State.StringEscape;
      if (this.holding && this.seq !== "") this.seq += ch;
      else out += this.visible(c);
    } else if (c === 0x07 && this.state === State.Osc) {
      if (this.holding && this.seq !== "") out += this.finishSequence(this.seq + ch);
      else {
        out += this.visible(c);
        this.state = State.Ground;
      }
    } else if (c === 0x9c) {
      // 8-bit ST: shown, and the string ends.
      if (this.holding && this.seq !== "") out += this.showAll(this.seq);
      out += this.visible(c);
      this.seq = "";
      this.state = State.Ground;
    } else {
      if (this.holding && this.seq !== "") this.seq += ch;
      else out += this.char(c, ch);
      if (this.seq.length > MAX_HELD) {
        out += this.showAll(this.seq);
        this.seq = "";
      }
    }
    return out;
  }

  inStringEscape(c: number, ch: string): string {
    let out = "";
    if (c === 0x5c) {
      if (this.holding && this.seq !== "") out += this.finishSequence(this.seq + ch);
      else {
        out += ch;
        this.state = State.Ground;
      }
    } else {
      // ESC inside a string that is not ST: the string ended there (unterminated); the ESC starts anew.
      const restart = this.holding && this.seq !== "" ? this.seq.slice(0, -1) : "";
      if (restart !== "") out += this.showAll(restart);
      this.seq = this.holding ? "\x1b" : "";
      this.state = State.Escape;
      this.reread = true;
    }
    return out;
  }

  /** A character in ground state: invisible ones made visible, combining floods cut, ZWJ kept only between pictographs. */
  ground(c: number, ch: string): string {
    if (c === 0x0a || c === 0x09) {
      this.combining = 0;
      const shown = this.flushZwj() + this.visible(c);
      this.lastBase = "";
      return shown;
    }
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      this.combining = 0;
      return this.flushZwj() + this.visible(c);
    }
    if (c === 0x200d) {
      // ZERO WIDTH JOINER: kept inside emoji sequences (👩‍💻), shown anywhere else.
      if (this.pendingZwj) return this.visible(c);
      if (this.lastBase !== "" && PICTOGRAPHIC.test(this.lastBase)) {
        this.pendingZwj = true;
        return "";
      }
      return this.visible(c);
    }
    if (this.pendingZwj) {
      this.pendingZwj = false;
      if (PICTOGRAPHIC.test(ch)) {
        this.lastBase = ch;
        this.combining = 0;
        return `\u200d${ch}`;
      }
      return this.visible(0x200d) + this.ground(c, ch);
    }
    if (isInvisible(c)) {
      this.combining = 0;
      return this.visible(c);
    }
    if (c >= 0x300 && COMBINING.test(ch)) {
      this.combining++;
      return this.combining > MAX_COMBINING ? "" : ch;
    }
    this.combining = 0;
    this.lastBase = ch;
    return ch;
  }

  flushZwj(): string {
    if (!this.pendingZwj) return "";
    this.pendingZwj = false;
    return this.visible(0x200d);
  }
}

/** The character (a surrogate pair whole) that ends at `end`. */
function elementBefore(text: string, end: number): string {
  const c = text.charCodeAt(end - 1);
  return c >= 0xdc00 && c <= 0xdfff && end >= 2 ? text.slice(end - 2, end) : text.slice(end - 1, end);
}

/** The character (a surrogate pair whole) that starts at `at`. */
function elementAt(text: string, at: number): string {
  const c = text.charCodeAt(at);
  return c >= 0xd800 && c <= 0xdbff && at + 1 < text.length ? text.slice(at, at + 2) : text.slice(at, at + 1);
}

/** Per BMP code unit, whether it is a combining mark (0: not known yet, 1: no, 2: yes): found once each. */
const MARKS = new Uint8Array(0x10000);

function isMark(c: number): boolean {
  let known = MARKS[c] as number;
  if (known === 0) {
    known = COMBINING.test(String.fromCharCode(c)) ? 2 : 1;
    MARKS[c] = known;
  }
  return known === 2;
}

/** Astral code points found to be neither a mark nor invisible (emoji, mostly), and those found to be one. */
const ASTRAL_PLAIN = new Map<number, boolean>();
const MAX_ASTRAL_KEPT = 4096;

function isPlainAstral(cp: number): boolean {
  let plain = ASTRAL_PLAIN.get(cp);
  if (plain === undefined) {
    plain = !isInvisible(cp) && !COMBINING.test(String.fromCodePoint(cp));
    if (ASTRAL_PLAIN.size < MAX_ASTRAL_KEPT) ASTRAL_PLAIN.set(cp, plain);
  }
  return plain;
}

/** True for format characters that change or hide what is shown: bidi controls, zero-width characters, tags. */
function isInvisible(c: number): boolean {
  return (
    c === 0x00ad ||
    c === 0x061c ||
    c === 0x180e ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x2069) ||
    c === 0xfeff ||
    (c >= 0xe0000 && c <= 0xe007f)
  );
}

/** Keeps SGR parameters but conceal (8); colour groups (38;5;n, 38;2;r;g;b) stay whole. Undefined when nothing is left. */
function filterSgr(params: string): string | undefined {
  if (params === "") return "0";
  const items = params.split(";");
  const kept: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as string;
    if ((item === "38" || item === "48" || item === "58") && i + 1 < items.length) {
      const form = items[i + 1];
      const take = form === "5" ? 3 : form === "2" ? 5 : 1;
      kept.push(...items.slice(i, i + take));
      i += take - 1;
      continue;
    }
    if (item === "8") continue; // conceal: hides text from the person while the model reads it
    kept.push(item);
  }
  return kept.length === 0 ? undefined : kept.join(";");
}

/** The URL when `text` is a well-formed http(s) URL of printable ASCII, else undefined. */
export function safeHttpUrl(text: string): string | undefined {
  if (text.length > 2048 || !/^https?:\/\/[!-~]+$/.test(text)) return undefined;
  try {
    const url = new URL(text);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") return undefined;
    return text;
  } catch {
    return undefined;
  }
}

/** Returns `text` safe to write to a terminal (one whole field). */
export function sanitizeForTerminal(text: string, options: SanitizeOptions = {}): string {
  const sanitizer = createSanitizer(options);
  return sanitizer.write(text) + sanitizer.end();
}

/** Removes our own styling (complete SGR sequences and OSC 8 links) from trusted text, for measuring it. */
export function stripSgr(text: string): string {
  if (!text.includes("\x1b")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 0x1b) {
      if (text[i + 1] === "[") {
        let j = i + 2;
        while (j < text.length && /[0-9;:]/.test(text[j] as string)) j++;
        if (text[j] === "m") {
          i = j;
          continue;
        }
      } else if (text.startsWith("]8;", i + 1)) {
        const end = text.indexOf("\x1b\\", i);
        if (end !== -1) {
          i = end + 1;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}
