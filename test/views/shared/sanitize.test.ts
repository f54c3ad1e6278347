/**
 * The escape-sequence state machine (src/views/shared/sanitize.ts): what each kind of sequence becomes,
 * by default (everything visible), with `sgr: "keep"` (colour only) and `sgr: "drop"`, streamed in
 * pieces, and on the whole terminal corpus (../shared/corpus/terminal/escape-payloads.json).
 */
import { readFileSync } from "node:fs";
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { createSanitizer, safeHttpUrl, sanitizeForTerminal, stripSgr, type SanitizeOptions } from "../../../src/views/shared/sanitize.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";

const ESC = "\x1b";
const keep: SanitizeOptions = { sgr: "keep" };

describe("sanitizeForTerminal: the state machine", () => {
  it.each([
    ["plain text passes unchanged", "hello, world\n\tindented", "hello, world\n\tindented"],
    ["CSI erase", `a${ESC}[2Jb`, "a␛[2Jb"],
    ["CSI private mode set", `${ESC}[?1049hx`, "␛[?1049hx"],
    ["CSI with intermediates (DECSCUSR)", `${ESC}[2 qx`, "␛[2 qx"],
    ["OSC ended by BEL", `${ESC}]0;title\x07after`, "␛]0;title␇after"],
    ["OSC ended by ST", `${ESC}]2;title${ESC}\\after`, "␛]2;title␛\\after"],
    [
      "unterminated OSC: only the introducer is neutralised, the rest shows",
      `${ESC}]0;never ends, and then our text`,
      "␛]0;never ends, and then our text",
    ],
    ["DCS", `${ESC}P$q;x${ESC}\\y`, "␛P$q;x␛\\y"],
    ["APC (kitty graphics)", `${ESC}_Gi=1;AAAA${ESC}\\y`, "␛_Gi=1;AAAA␛\\y"],
    ["PM", `${ESC}^private${ESC}\\y`, "␛^private␛\\y"],
    ["SOS", `${ESC}Xstring${ESC}\\y`, "␛Xstring␛\\y"],
    ["8-bit CSI U+009B", "\u009b2Jx", "<U+009B>2Jx"],
    ["8-bit OSC U+009D and ST U+009C", "\u009d0;t\u009cafter", "<U+009D>0;t<U+009C>after"],
    ["other C1 controls", "a\u0085b\u008dc", "a<U+0085>b<U+008D>c"],
    ["lone ESC at the end", `text${ESC}`, "text␛"],
    ["lone ESC before text", `${ESC} x`, "␛ x"],
    ["ESC ESC", `${ESC}${ESC}[1m`, "␛␛[1m"],
    ["two-character ESC sequences (DECSC, RIS)", `${ESC}7${ESC}c${ESC}8`, "␛7␛c␛8"],
    ["charset designation (nF) and SO/SI", `${ESC}(0lqk\x0eabc\x0f`, "␛(0lqk␎abc␏"],
    ["C0 controls as Control Pictures", "a\x00b\x07c\x08d\x0be\x0cf\x7fg", "a␀b␇c␈d␋e␌f␡g"],
    ["a lone CR is shown, CR LF is a line break", "one\r\ntwo\rthree", "one\ntwo␍three"],
    [
      "bidi overrides and isolates",
      "a\u202eb\u202cc\u2066d\u2069e\u200ff\u061cg",
      "a<U+202E>b<U+202C>c<U+2066>d<U+2069>e<U+200F>f<U+061C>g",
    ],
    ["zero-width characters", "a\u200bb\u2060c\ufeffd\u00ade", "a<U+200B>b<U+2060>c<U+FEFF>d<U+00AD>e"],
    ["ZWJ between letters is shown", "p\u200dass", "p<U+200D>ass"],
    ["ZWJ inside an emoji sequence is kept", "dev 👩\u200d💻 ok", "dev 👩\u200d💻 ok"],
    ["tag characters", "hi\u{e0049}\u{e0047}", "hi<U+E0049><U+E0047>"],
    ["lone surrogates", "x\ud800y\udc00z", "x\ufffdy\ufffdz"],
    ["a valid surrogate pair", "🎉", "🎉"],
    ["more than 4 stacked combining marks are cut", `a${"\u0301".repeat(30)}b`, `a${"\u0301".repeat(4)}b`],
    ["SGR is shown by default", `${ESC}[31mred${ESC}[0m`, "␛[31mred␛[0m"],
  ])("%s", (_name, input, expected) => {
    expect(sanitizeForTerminal(input)).toBe(expected);
  });

  it("one-line slots show LF as ⏎ and TAB as a space", () => {
    expect(sanitizeForTerminal("a\nb\tc", { keepNewlines: false })).toBe("a⏎b c");
  });

  it("keeps complete SGR with sgr: keep, and nothing else", () => {
    expect(sanitizeForTerminal(`${ESC}[31mred${ESC}[0m plain`, keep)).toBe(`${ESC}[31mred${ESC}[0m plain`);
    expect(sanitizeForTerminal(`${ESC}[38:2::255:0:0mX${ESC}[0m`, keep)).toBe(`${ESC}[38:2::255:0:0mX${ESC}[0m`);
    expect(sanitizeForTerminal(`${ESC}[2J${ESC}[?25l${ESC}[1A`, keep)).toBe("␛[2J␛[?25l␛[1A");
    expect(sanitizeForTerminal(`${ESC}]0;t\x07x`, keep)).toBe("␛]0;t␇x");
    expect(sanitizeForTerminal("\u009b31mX", keep)).toBe("<U+009B>31mX"); // the 8-bit form is never kept
    expect(sanitizeForTerminal(`${ESC}[>4;1m`, keep)).toBe("␛[>4;1m"); // a private marker is not SGR
    expect(sanitizeForTerminal(`${ESC}[1$m`, keep)).toBe("␛[1$m"); // nor is an intermediate
  });

  it("removes conceal from kept SGR (colour groups stay whole) and closes an unreset style", () => {
    expect(sanitizeForTerminal(`a ${ESC}[8mhidden${ESC}[28m b`, keep)).toBe(`a hidden${ESC}[28m b${ESC}[0m`);
    expect(sanitizeForTerminal(`${ESC}[1;8;31mX${ESC}[0m`, keep)).toBe(`${ESC}[1;31mX${ESC}[0m`);
    expect(sanitizeForTerminal(`${ESC}[38;5;8mgrey${ESC}[0m`, keep)).toBe(`${ESC}[38;5;8mgrey${ESC}[0m`);
    expect(sanitizeForTerminal(`${ESC}[5;7;41mnever reset`, keep)).toBe(`${ESC}[5;7;41mnever reset${ESC}[0m`);
  });

  it("shows a parameter flood instead of keeping it", () => {
    const flood = `${ESC}[${"1;".repeat(40)}1mX`;
    expect(sanitizeForTerminal(flood, keep)).toBe(`␛[${"1;".repeat(40)}1mX`);
  });

  it("drops complete SGR with sgr: drop (mode none with --keep-colors) and shows the rest", () => {
    expect(sanitizeForTerminal(`${ESC}[31mred${ESC}[0m ${ESC}[2J`, { sgr: "drop" })).toBe("red ␛[2J");
  });

  it("turns a well-formed http(s) OSC 8 link into our own, and shows any other", () => {
    const link = (url: string) => `<${url}>`;
    expect(sanitizeForTerminal(`${ESC}]8;;https://example.com/a${ESC}\\text${ESC}]8;;${ESC}\\`, { link })).toBe(
      "<https://example.com/a>text",
    );
    expect(sanitizeForTerminal(`${ESC}]8;;javascript:alert(1)${ESC}\\x`, { link })).toBe("␛]8;;javascript:alert(1)␛\\x");
    expect(sanitizeForTerminal(`${ESC}]8;id=x;file:///etc/passwd\x07x`, { link })).toBe("␛]8;id=x;file:///etc/passwd␇x");
    expect(sanitizeForTerminal(`${ESC}]8;;https://example.com/ unterminated`, { link })).toBe("␛]8;;https://example.com/ unterminated");
  });

  it("safeHttpUrl accepts only well-formed http(s) URLs of printable ASCII", () => {
    expect(safeHttpUrl("https://example.com/x?y=1")).toBe("https://example.com/x?y=1");
    expect(safeHttpUrl("http://localhost:8080")).toBe("http://localhost:8080");
    expect(safeHttpUrl("ftp://example.com")).toBeUndefined();
    expect(safeHttpUrl("https://exa mple.com")).toBeUndefined();
    expect(safeHttpUrl("https://")).toBeUndefined();
    expect(safeHttpUrl("https://example.com/\u202e")).toBeUndefined();
  });

  it("stripSgr removes our styling only", () => {
    expect(stripSgr(`${ESC}[1;32mok${ESC}[0m ${ESC}]8;;https://a.b${ESC}\\https://a.b${ESC}]8;;${ESC}\\`)).toBe("ok https://a.b");
  });
});

describe("createSanitizer: streaming", () => {
  it("a sequence split between chunks is still one sequence", () => {
    const s = createSanitizer(keep);
    expect(s.write(`red: ${ESC}`)).toBe("red: ");
    expect(s.write("[31")).toBe("");
    expect(s.write("mX")).toBe(`${ESC}[31mX`);
    expect(s.takeStyled()).toBe(true);
    expect(s.end()).toBe(`${ESC}[0m`);
  });

  it("a CR at the end of a chunk waits for the LF of the next one", () => {
    const s = createSanitizer();
    expect(s.write("a\r") + s.write("\nb") + s.end()).toBe("a\nb");
    expect(s.write("a\r") + s.write("b") + s.end()).toBe("a␍b");
  });

  it("a surrogate pair split between chunks survives", () => {
    const s = createSanitizer();
    expect(s.write("x\ud83c") + s.write("\udf89y") + s.end()).toBe("x🎉y");
  });

  it("an unterminated sequence held back is shown at the end, never swallowed", () => {
    const s = createSanitizer(keep);
    expect(s.write(`${ESC}]0;never ends`) + s.write(" and more text") + s.end()).toBe("␛]0;never ends and more text");
  });

  it("a held sequence is bounded: past 4096 characters it is shown", () => {
    const s = createSanitizer(keep);
    const out = s.write(`${ESC}]0;${"x".repeat(5000)}`);
    expect(out.length).toBeGreaterThan(4000);
    expect(out.startsWith("␛]0;")).toBe(true);
  });
});

describe("createSanitizer: the one-pass path for ordinary text", () => {
  // Characters the path takes (printable, LF, TAB, pairs, ZWJ between pictographs) and every kind it must
  // leave to the parser: controls, ESC and CSI, C1, bidi and zero-width characters, lone surrogates, marks.
  const pieces = fc.constantFrom(
    ...["a", " ", "word", "\n", "\t", "é", "日本", "→", "thế giới", "🙂", "👩\u200d💻", "☺", "\u200d", "\ud83c", "\udf89"],
    ...["\x1b", "\x1b[31m", "\x1b]0;t\x07", "\r", "\r\n", "\x00", "\x7f", "\u009b", "\u202e", "\u200b", "\ufeff", "\u00ad"],
    ...["\u0301", "\u0301\u0301\u0301\u0301\u0301", "a\u0308", "\u{1d165}", "\u{e0041}", "\u{1f600}\u200d"],
  );
  const text = fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join(""));
  const optionSets: SanitizeOptions[] = [{}, keep, { keepNewlines: false }, { link: (u: string) => `<${u}>` }];

  test.prop([text, text, text, fc.constantFrom(...optionSets)], { numRuns: 2000 })(
    "a chunk comes out as the parser writes it, and leaves the state it leaves",
    (before, chunk, after, options) => {
      // A NUL in front sends the chunk through the character-by-character parser; alone, it may take the short path.
      const parsed = createSanitizer(options);
      const slow = parsed.write(before) + parsed.write(`\x00${chunk}`) + parsed.write(after) + parsed.end();
      const streamed = createSanitizer(options);
      const fast = streamed.write(before) + streamed.write("\x00") + streamed.write(chunk) + streamed.write(after) + streamed.end();
      expect(fast).toBe(slow);
    },
  );

  it("emoji joined by ZWJ, text in any script, LF and TAB come out as they went in", () => {
    const s = createSanitizer();
    for (const chunk of ["Xin chào 👩\u200d💻", " thế giới\n\tnext", "日本 → ☺\u200d☺"]) expect(s.write(chunk)).toBe(chunk);
    expect(s.write("\u200d")).toBe(""); // after a pictograph, a ZWJ waits for the next character
    expect(s.write("x") + s.end()).toBe("<U+200D>x");
  });
});

noteSharedMissing();
describe.skipIf(!hasShared)("the terminal corpus (../shared/corpus/terminal/escape-payloads.json)", () => {
  const payloads = hasShared
    ? (
        JSON.parse(readFileSync(sharedPath("corpus/terminal/escape-payloads.json"), "utf8")) as {
          payloads: { id: string; payload: string }[];
        }
      ).payloads
    : [];
  const FORBIDDEN =
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|\udb40[\udc00-\udc7f]/;

  it.each(payloads.map((p) => [p.id, p.payload] as const))("%s: default, keep-SGR, drop, streamed, idempotent, ×1000", (_id, payload) => {
    const plain = sanitizeForTerminal(payload);
    expect(plain).not.toMatch(FORBIDDEN);
    expect(sanitizeForTerminal(plain)).toBe(plain);
    const kept = sanitizeForTerminal(payload, keep);
    expect(kept.replace(/\x1b\[[0-9;:]*m/g, "")).not.toMatch(FORBIDDEN);
    if (kept.includes(ESC)) expect(kept.endsWith(`${ESC}[0m`) || /\x1b\[0?m[^\x1b]*$/.test(kept)).toBe(true);
    expect(sanitizeForTerminal(payload, { sgr: "drop" })).not.toContain(ESC);
    // Chunk boundaries never change the result, in any mode.
    for (const options of [{}, keep, { sgr: "drop" as const }, { link: (u: string) => `<${u}>` }]) {
      const whole = sanitizeForTerminal(payload, options);
      for (let cut = 0; cut <= payload.length; cut++) {
        const s = createSanitizer(options);
        expect(s.write(payload.slice(0, cut)) + s.write(payload.slice(cut)) + s.end()).toBe(whole);
      }
    }
    // Speed is measured by `npm run bench`, not asserted here; this checks a long input stays safe.
    const many = payload.repeat(1000);
    expect(sanitizeForTerminal(many)).not.toMatch(FORBIDDEN);
  });

  it("a 200 KB parameter flood and a 200 KB unterminated OSC are neutralised whole (the text after the OSC stays visible)", () => {
    for (const input of [`${ESC}[${"1;".repeat(100_000)}m`, `${ESC}]0;${"x".repeat(200_000)}`]) {
      for (const options of [{}, keep]) expect(sanitizeForTerminal(input, options)).not.toMatch(FORBIDDEN);
    }
    expect(sanitizeForTerminal(`${ESC}]0;${"x".repeat(200_000)}visible`)).toMatch(/visible$/);
  });
});
