/**
 * Every real capture (../shared/fixtures) and the bundled example, rendered in each mode at widths
 * 40, 80 and 200 into a real terminal emulator (xterm.js headless) of that width. The emulator is
 * the oracle: nothing but text and our colours reaches it, the cursor only ever moves forward
 * (append-only: no row is overwritten, every soft-wrapped row belongs to one logical line), no line
 * is printed twice in a row unless the source repeats it, and the screen reads the same in
 * full, basic and none.
 */
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/model/events.ts";
import type { RenderMode, Verbosity } from "../../../src/views/terminal/create-terminal-renderer.ts";
import { readFile } from "../../helpers/read.ts";
import { hasShared, listCaptures, noteSharedMissing, repoRoot, sharedPath } from "../../helpers/shared.ts";
import { createScreen, plain, renderWrites } from "./_emulator.ts";

const WIDTHS = [40, 80, 200] as const;
const MODES: readonly RenderMode[] = ["full", "basic", "none"];
const example = `${repoRoot}/examples/claude-code-session.ndjson`;

/** Marks and gutters the view puts before and after text: stripped to find the source text of a line. */
const DECORATION_START = /^[\s│●∴›»→↳✎☐◐☑◇◆✓✗◼⚠◷·…⋯?⚕↻#<>-]+/u;

/** Every string of the events that the view may show, except streamed pieces and the repeated final answer. */
function corpusOf(events: readonly AgentEvent[]): string {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object")
      for (const [key, v] of Object.entries(value)) if (key !== "raw" && key !== "source") walk(v);
  };
  for (const event of events) {
    if (event.type === "message.delta" || event.type === "tool.input.delta" || event.type === "tool.progress") continue;
    if (event.type === "session.completed") {
      const { finalText: _final, ...rest } = event;
      walk(rest);
    } else walk(event);
  }
  return out.join("\n");
}

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1 && count < 2; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}

interface Rendered {
  output: string;
  screen: string[];
  problems: string[];
}

/** Renders into an emulator, checking the append-only contract write by write. */
async function renderInto(
  events: readonly AgentEvent[],
  mode: RenderMode,
  width: number,
  verbosity: Verbosity = "normal",
): Promise<Rendered> {
  const { writes, eventOfWrite } = renderWrites(events, { mode, width, verbosity });
  return check(events, writes, eventOfWrite, mode, width);
}

/** The oracle: feeds `writes` to an emulator `width` wide and lists every breach of the contract. */
async function check(
  events: readonly AgentEvent[],
  writes: readonly string[],
  eventOfWrite: readonly number[],
  mode: RenderMode,
  width: number,
): Promise<Rendered> {
  const output = writes.join("");
  const problems: string[] = [];
  const text = plain(output);
  // Nothing but text and our SGR: no control character but LF and TAB, no other escape sequence.
  const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(text);
  if (control !== null) problems.push(`control character U+${control[0].charCodeAt(0).toString(16)} in the output at ${control.index}`);
  if (mode === "none" && output.includes("\x1b")) problems.push("mode none wrote an escape sequence");
  const screen = createScreen(width, { scrollback: 200_000, watch: "cursor" });
  let last = screen.cursor();
  for (const write of writes) {
    await screen.write(write);
    const now = screen.cursor();
    if (now.row < last.row || (now.row === last.row && now.col < last.col))
      problems.push(`the cursor moved back from ${last.row}:${last.col} to ${now.row}:${now.col}`);
    last = now;
  }
  if (screen.effects.csi.length > 0 || screen.effects.esc.length > 0)
    problems.push(`cursor-moving sequences reached the terminal: ${[...screen.effects.csi, ...screen.effects.esc].join(" ")}`);
  // Every logical line of the output is exactly one logical line on screen (soft wraps joined), in order.
  const expected = text.split("\n");
  const logical = screen.logicalLines();
  if (logical.length !== expected.length) problems.push(`${logical.length} logical lines on screen, ${expected.length} written`);
  const squash = (s: string): string => s.replace(/\s+/g, "");
  for (let i = 0; i < Math.min(logical.length, expected.length); i++) {
    if (squash(logical[i] as string) !== squash(expected[i] as string)) {
      problems.push(`line ${i} reads ${JSON.stringify(logical[i])}, written ${JSON.stringify(expected[i])}`);
      break;
    }
  }
  // No line twice in a row (blank lines between do not count) unless the source has it twice, or two events of one kind each printed it.
  if (mode === "full") {
    const writeStart: number[] = [];
    let offset = 0;
    for (const w of writes) {
      writeStart.push(offset);
      offset += plain(w).length;
    }
    const eventAt = (pos: number): number => {
      let lo = 0;
      let hi = writeStart.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((writeStart[mid] as number) <= pos) lo = mid;
        else hi = mid - 1;
      }
      return eventOfWrite[lo] ?? -1;
    };
    const corpus = corpusOf(events);
    let previous: { text: string; event: number } | undefined;
    let pos = 0;
    for (const lineText of expected) {
      const here = { text: lineText.trim(), event: eventAt(pos) };
      pos += lineText.length + 1;
      if (here.text === "") continue;
      if (previous !== undefined && previous.text === here.text) {
        const core = here.text.replace(DECORATION_START, "").replace(/…$/, "").trim();
        const sameKind = previous.event !== here.event && events[previous.event]?.type === events[here.event]?.type;
        if (!sameKind && core !== "" && occurrences(corpus, core) < 2)
          problems.push(`line printed twice in a row: ${JSON.stringify(here.text)}`);
      }
      previous = here;
    }
  }
  const rows = screen.rows();
  screen.dispose();
  return { output, screen: rows, problems };
}

function inputs(): [string, string][] {
  const out: [string, string][] = [["examples/claude-code-session.ndjson", example]];
  for (const [dialect, path] of listCaptures()) out.push([`${dialect}/${relative(sharedPath("fixtures", dialect), path)}`, path]);
  return out;
}

noteSharedMissing();
describe("render into a terminal emulator: every capture × widths 40, 80, 200 × modes full, basic, none", () => {
  const cases = inputs().flatMap(([name, path]) => WIDTHS.map((width) => [name, width, path] as const));
  it.each(cases)("%s at width %i", async (_name, width, path) => {
    const { events } = readFile(path);
    const results: Rendered[] = [];
    for (const mode of MODES) results.push(await renderInto(events, mode, width));
    for (const [i, r] of results.entries()) expect(r.problems, `mode ${MODES[i]}`).toEqual([]);
    // The same visible text in every mode: styles change, words do not.
    expect(results[1]?.screen).toEqual(results[0]?.screen);
    expect(results[2]?.screen).toEqual(results[0]?.screen);
  });

  it("the oracle itself catches a cursor-up rewrite, a carriage return, a line printed twice and an orphaned row", async () => {
    const events: AgentEvent[] = [
      { v: 1, seq: 0, type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Hello", position: 0 },
      { v: 1, seq: 1, type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hello" },
    ];
    const cursorUp = await check(events, ["● Hello\n", "\x1b[1A\x1b[2K● Hello\n"], [0, 1], "full", 40);
    expect(cursorUp.problems.join("\n")).toMatch(/control character/);
    expect(cursorUp.problems.join("\n")).toMatch(/cursor-moving sequences reached the terminal: A K/);
    const carriageReturn = await check(events, ["● Hel", "\r● Hello\n"], [0, 1], "full", 40);
    expect(carriageReturn.problems.join("\n")).toMatch(/control character U\+d/);
    const twice = await check(events, ["● Hello\n", "\n● Hello\n"], [0, 1], "full", 40);
    expect(twice.problems.join("\n")).toMatch(/printed twice/);
    // A rewrite that no character check sees: a wrapped line overwritten from its second row (cursor-position report style).
    const wrapped = await check(events, [`● ${"x".repeat(50)}`, "\x1b[1;1Hy\n"], [0, 1], "basic", 40);
    expect(wrapped.problems.join("\n")).toMatch(/moved back/);
    expect(wrapped.problems.join("\n")).toMatch(/logical lines on screen|reads/);
  });

  it.skipIf(!hasShared)("the example and every capture stay append-only in -q, -v and --full too (width 80, mode full)", async () => {
    for (const [name, path] of inputs()) {
      const { events } = readFile(path);
      for (const verbosity of ["quiet", "verbose", "full"] as const) {
        const r = await renderInto(events, "full", 80, verbosity);
        expect(r.problems, `${name} ${verbosity}`).toEqual([]);
      }
    }
  });
});
