/** The export's embedded session: caps per field and in all, merged deltas, and JSON that cannot end its script element. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSessionEmbedder, cutMiddle, DEFAULT_CAPS, EVENT_CHARS } from "../../../src/views/html/embed.ts";
import { embedJson, exportPage } from "../../../src/views/html/page.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { build } from "../../helpers/events.ts";

// No event is left out in these tests but the one that says so (its own `eventsChars`).
const caps = { fieldChars: 1000, totalChars: 5000, afterBudgetChars: 100, eventsChars: 1_000_000 };

function toolCall(id: string, output: string): object[] {
  return [
    { type: "tool.started", toolCallId: id, name: "Bash", kind: "command", input: { command: "ls" } },
    { type: "tool.completed", toolCallId: id, output, result: { stdout: output }, isError: false },
  ];
}

describe("the embedded session", () => {
  it("cuts a long field to the cap, keeping its start and end, and says how much is missing where", () => {
    const events = build(toolCall("t1", `${"a".repeat(1500)}END`));
    const embedder = createSessionEmbedder(caps);
    for (const event of events) embedder.add(event);
    const { events: out, truncation } = embedder.result({});
    const completed = out[1] as Extract<AgentEvent, { type: "tool.completed" }>;
    expect(completed.output?.startsWith("a".repeat(750))).toBe(true);
    expect(completed.output?.endsWith("END")).toBe(true);
    expect(completed.output).toContain("[503 characters not embedded]");
    expect(completed.result).toBeUndefined(); // the page shows output; the structured copy is not embedded
    expect(truncation).toMatchObject({ shortened: 1, omittedChars: 503, cut: { "1": { output: 503 } } });
  });

  it("past the total budget every field keeps only a little, so the page stays proportional", () => {
    const events = build(Array.from({ length: 20 }, (_, i) => toolCall(`t${i}`, "x".repeat(900))).flat());
    const embedder = createSessionEmbedder(caps);
    for (const event of events) embedder.add(event);
    const { events: out, truncation } = embedder.result({});
    const outputs = out.flatMap((e) => (e.type === "tool.completed" ? [e.output ?? ""] : []));
    expect(outputs.slice(0, 5).every((o) => o.length === 900)).toBe(true);
    expect(outputs.slice(7).every((o) => o.length < 200)).toBe(true);
    expect(truncation.shortened).toBeGreaterThan(10);
    expect(JSON.stringify(out).length).toBeLessThan(caps.totalChars + 20 * 400);
  });

  it("past eventsChars no event is embedded but the session's end: a million tiny records make a bounded page", () => {
    const eventsChars = 100 * EVENT_CHARS;
    const embedder = createSessionEmbedder({ ...caps, eventsChars });
    const n = 100_000;
    for (let seq = 0; seq < n; seq++) embedder.add({ v: 1, seq, type: "unknown", raw: { n: seq }, reason: "opaque record" } as AgentEvent);
    // Deltas of a message that never completes are held, so they count too.
    for (let seq = n; seq < n + 10; seq++)
      embedder.add({
        v: 1,
        seq,
        type: "message.delta",
        messageId: "m",
        role: "assistant",
        kind: "text",
        text: "x",
        position: 0,
      } as AgentEvent);
    embedder.add({ v: 1, seq: n + 10, type: "session.completed", status: "success" } as AgentEvent);
    const { events: out, truncation } = embedder.result({});
    expect(embedder.count).toBeLessThanOrEqual(101);
    expect(out.at(-1)?.type).toBe("session.completed");
    expect(truncation.omittedEvents).toBe(n + 10 + 1 - out.length);
    expect(truncation.eventsChars).toBe(eventsChars);
  });

  it("does not embed the deltas of a completed message, and keeps those of one that never completed", () => {
    const events = build([
      { type: "message.started", messageId: "m1", role: "assistant", kind: "text" },
      { type: "message.delta", messageId: "m1", role: "assistant", kind: "text", text: "Hel", position: 0 },
      { type: "message.delta", messageId: "m1", role: "assistant", kind: "text", text: "lo", position: 3 },
      { type: "message.completed", messageId: "m1", role: "assistant", kind: "text", text: "Hello" },
      { type: "message.started", messageId: "m2", role: "assistant", kind: "text" },
      { type: "message.delta", messageId: "m2", role: "assistant", kind: "text", text: "cut", position: 0 },
      { type: "error", scope: "stream", message: "ended" },
    ]);
    const embedder = createSessionEmbedder(caps);
    for (const event of events) embedder.add(event);
    const { events: out, truncation } = embedder.result({});
    expect(out.map((e) => e.seq)).toEqual([0, 3, 4, 5, 6]);
    expect(truncation.mergedDeltas).toBe(2);
  });

  it("does not embed what the page does not show: raw records, reasoning signatures, agent details", () => {
    const events = build([
      { type: "session.started", agent: "claude-code", details: { mcp_servers: [] }, raw: { type: "system" } },
      { type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: "hm", signature: "x".repeat(9000) },
      { type: "unknown", raw: { type: "mystery" }, reason: "unknown record type" },
    ]);
    const embedder = createSessionEmbedder(caps);
    for (const event of events) embedder.add(event);
    const { events: out, truncation } = embedder.result({});
    expect(out[0]).toEqual({ v: 1, seq: 0, type: "session.started", agent: "claude-code" });
    expect(out[1]).not.toHaveProperty("signature");
    expect(out[2]).toHaveProperty("raw", { type: "mystery" });
    expect(truncation.shortened).toBe(0);
  });

  it("the default caps are 256 Ki characters a field and 8 Mi in all", () => {
    expect(DEFAULT_CAPS).toEqual({ fieldChars: 262144, totalChars: 8388608, afterBudgetChars: 4096 });
    expect(cutMiddle("0123456789", 4)).toBe("012\n… [6 characters not embedded] …\n9");
  });
});

describe("the page", () => {
  const payload = "</script><script>window.__xss=1</script><!-- \u2028\u2029 &amp;";

  it("embeds JSON with no <, >, & or line separator that could end or change the script element", () => {
    const text = embedJson({ text: payload });
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual({ text: payload });
  });

  it("allows only its own script and style, by hash, and nothing else", async () => {
    const [event] = build([{ type: "message.completed", messageId: "m", role: "user", kind: "text", text: payload }]);
    const session = {
      header: { input: payload },
      events: [event as AgentEvent],
      truncation: { ...caps, shortened: 0, omittedChars: 0, cut: {}, mergedDeltas: 0 },
    };
    const assets = { script: "console.log(1)", css: "body{color:red}" };
    const page = (await exportPage(session, assets, payload)).join("");
    const hash = (text: string): string => createHash("sha256").update(text).digest("base64");
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1];
    expect(csp).toBe(
      `default-src 'none'; script-src 'sha256-${hash(assets.script)}'; style-src 'sha256-${hash(assets.css)}'; base-uri 'none'; form-action 'none'`,
    );
    expect(page.match(/<script/g)).toHaveLength(2);
    expect(page.match(/<\/script>/g)).toHaveLength(2);
    expect(page).toContain("<title>&#60;/script&#62;&#60;script&#62;");
    const json = /<script type="application\/json" id="agentstream-session">\n([\s\S]*?)\n<\/script>/.exec(page)?.[1] ?? "";
    expect(JSON.parse(json).events[0].text).toBe(payload);
  });

  it("refuses assets that would end their element early", async () => {
    const session = { header: {}, events: [], truncation: { ...caps, shortened: 0, omittedChars: 0, cut: {}, mergedDeltas: 0 } };
    await expect(exportPage(session, { script: "'</script>'", css: "" }, "t")).rejects.toThrow(/rebuild/);
  });
});
