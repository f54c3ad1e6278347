/**
 * The catalog behind `agentstream serve` (src/server/catalog.ts), through its HTTP API: a file
 * rewritten after it was read is read anew, a served folder that does not exist yet is listed once
 * it appears, and what the list says of each session (title or first prompt, running or ended,
 * subagent files under their parent).
 */
import { appendFileSync, copyFileSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { createCatalog, MISSING_PATH, type CatalogOptions } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import { httpGet, openSse } from "../helpers/http.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

let server: SessionServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(
  paths: string[],
  extra: Partial<CatalogOptions> = {},
): Promise<{ list: () => Promise<SessionInfo[]>; events: (id: string) => Promise<AgentEvent[]> }> {
  const catalog = await createCatalog({ paths, read: { dialect: "auto", redact: true }, pollMs: 50, rescanMs: 0, ...extra });
  const started = await startServer({ catalog, assets: { script: "", css: "" } });
  server = started;
  const auth = { Authorization: `Bearer ${started.token}` };
  return {
    list: async () => JSON.parse((await httpGet(started.origin, "/api/sessions", auth)).body) as SessionInfo[],
    events: async (id) => {
      const stream = openSse(started.origin, `/api/sessions/${id}/events`, auth);
      await stream.waitFor((frame) => frame.event === "end");
      stream.close();
      return stream.frames.filter((f) => f.event === "message").map((f) => JSON.parse(f.data) as AgentEvent);
    },
  };
}

/** A session in our own event format, its answers saying `word`. */
function sessionLines(session: string, word: string, answers: number): string {
  const time = "2026-11-30T10:00:00.000Z";
  const events: object[] = [{ v: 1, seq: 0, time, type: "session.started", sessionId: session, cwd: "/w", model: "m" }];
  for (let i = 1; i <= answers; i++)
    events.push({
      v: 1,
      seq: i,
      time,
      type: "message.completed",
      messageId: `m${i}`,
      role: "assistant",
      kind: "text",
      text: `${word} ${i}`,
    });
  events.push({ v: 1, seq: answers + 1, time, type: "session.completed", status: "success" });
  return `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;
}

const answers = (events: readonly AgentEvent[]): string[] =>
  events.flatMap((e) => (e.type === "message.completed" && e.role === "assistant" ? [e.text] : []));

describe("a file rewritten while served", () => {
  it("is read anew when opened again: a saved log truncated and rewritten with other events", async () => {
    const dir = tempDir("serve-rewrite");
    const file = join(dir, "saved.ndjson");
    writeFileSync(file, sessionLines("s", "old", 3));
    const api = await serve([dir]);
    const [listed] = await api.list();
    expect(answers(await api.events(listed?.id ?? ""))).toEqual(["old 1", "old 2", "old 3"]);
    writeFileSync(file, sessionLines("s", "new", 5)); // truncated and written again, within the minute a feed is kept
    expect(answers(await api.events(listed?.id ?? ""))).toEqual(["new 1", "new 2", "new 3", "new 4", "new 5"]);
    expect((await api.list())[0]).toMatchObject({ id: listed?.id, events: 7 });
  });

  it("is read anew when opened again: a run log truncated and rewritten while it is followed", async () => {
    const dir = tempDir("serve-rewrite-run");
    const file = join(dir, "r1.events.ndjson");
    writeFileSync(join(dir, "r1.raw"), "");
    writeFileSync(file, sessionLines("s", "old", 2));
    const api = await serve([dir]);
    const [listed] = await api.list();
    expect(listed).toMatchObject({ live: true, events: 4 });
    const id = listed?.id ?? "";
    const followed = openSse(server?.origin ?? "", `/api/sessions/${id}/events`, { Authorization: `Bearer ${server?.token}` });
    await followed.waitFor((frame) => frame.id === "3");
    // Longer than before, so a reader that only compares sizes would read on from the old offset.
    writeFileSync(file, sessionLines("s", "rewritten", 6));
    await followed.waitFor((frame) => frame.event === "end"); // that run's feed ends with what was read
    expect(followed.frames.some((f) => f.data.includes("rewritten"))).toBe(false);
    writeFileSync(join(dir, "r1.summary.json"), "{}\n");
    expect(answers(await api.events(id))).toEqual([
      "rewritten 1",
      "rewritten 2",
      "rewritten 3",
      "rewritten 4",
      "rewritten 5",
      "rewritten 6",
    ]);
    expect((await api.list())[0]).toMatchObject({ id, events: 8, live: false });
  });
});

describe("a served path that does not exist yet", () => {
  it("is served empty, said in /api/sources, and listed once it appears", async () => {
    const home = tempDir("serve-fresh");
    const runs = join(home, ".agentstream", "runs");
    const api = await serve([runs]);
    expect(await api.list()).toEqual([]);
    const auth = { Authorization: `Bearer ${server?.token}` };
    const sources = async (): Promise<unknown> => JSON.parse((await httpGet(server?.origin ?? "", "/api/sources", auth)).body);
    expect(await sources()).toEqual([{ kind: "path", description: runs, state: "unavailable", detail: MISSING_PATH }]);
    mkdirSync(runs, { recursive: true });
    writeFileSync(join(runs, "r1.raw"), "");
    writeFileSync(join(runs, "r1.events.ndjson"), sessionLines("s", "first", 1));
    expect(await api.list()).toMatchObject([{ file: join(runs, "r1.events.ndjson"), live: true }]);
    expect(await sources()).toEqual([]);
  });
});

describe("what the list says of each session", () => {
  const parentCapture = sharedPath("fixtures/claude-session/ralph_2.1.223_interactive_parent_a4731909.jsonl");
  const subagentCapture = sharedPath("fixtures/claude-session/ralph_2.1.223_interactive_a4731909_subagents/agent-a4ff0e1ce30e00726");

  it.skipIf(!hasShared)(
    "a Claude Code subagent file is listed under its parent session, each with its title and first prompt",
    async () => {
      // The layout of ~/.claude/projects/<project>: <session>.jsonl and <session>/subagents/agent-<id>.{jsonl,meta.json}.
      const project = tempDir("serve-project");
      const session = "a4731909-31bc-4ad5-bac9-cd59ee7e0615";
      mkdirSync(join(project, session, "subagents"), { recursive: true });
      copyFileSync(parentCapture, join(project, `${session}.jsonl`));
      for (const ext of [".jsonl", ".meta.json"])
        copyFileSync(`${subagentCapture}${ext}`, join(project, session, "subagents", `agent-a4ff0e1ce30e00726${ext}`));
      const api = await serve([project]);
      const list = await api.list();
      expect(list).toHaveLength(1);
      const [parent] = list;
      expect(parent).toMatchObject({
        file: join(project, `${session}.jsonl`),
        agent: "claude-code",
        title: "Revise plan with repository evidence and feedback",
        prompt: expect.stringMatching(
          /^Revise the current plan using fresh repository evidence and analysis feedback\. PLANNING EDIT MODE/,
        ),
        live: false,
      });
      expect(Array.from(parent?.prompt ?? "").length).toBeLessThanOrEqual(200);
      expect(parent?.subagents).toHaveLength(1);
      const subagent = parent?.subagents[0] as SessionInfo;
      expect(subagent).toMatchObject({
        file: join(project, session, "subagents", "agent-a4ff0e1ce30e00726.jsonl"),
        title: "Explore: Read planning task inputs",
        prompt: expect.stringMatching(/^List directory \/REDACTED_WORKSPACE\/\.agent\/ recursively/),
        subagents: [],
      });
      // Still a session of its own to open, by its id.
      const events = await api.events(subagent.id);
      expect(events.length).toBe(subagent.events);
      expect((await api.list())[0]?.subagents[0]).toMatchObject({ id: subagent.id, title: "Explore: Read planning task inputs" });
    },
  );

  it("a run log whose run stopped writing before its summary is not running once it has been quiet long enough", async () => {
    const dir = tempDir("serve-quiet");
    writeFileSync(join(dir, "r1.raw"), "");
    const lines = sessionLines("s", "answer", 2).trim().split("\n").slice(0, -1); // no end record: killed mid-run
    writeFileSync(join(dir, "r1.events.ndjson"), `${lines.join("\n")}\n`);
    const api = await serve([dir], { quietMs: 5_000 });
    expect(await api.list()).toMatchObject([{ live: true, status: "running" }]);
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(dir, "r1.events.ndjson"), past, past); // as a run killed by SIGKILL a minute ago leaves it
    expect(await api.list()).toMatchObject([{ live: false, status: "incomplete", events: 3 }]);
    const [listed] = await api.list();
    expect((await api.events(listed?.id ?? "")).length).toBe(3); // the stream ends: nothing more will come
  });
});

describe("a session file being written", () => {
  it("is running while it grows, streams what is appended, and ends once it has been quiet long enough", async () => {
    const dir = tempDir("serve-growing");
    const file = join(dir, "session.ndjson");
    const lines = sessionLines("s", "answer", 6).trim().split("\n").slice(0, -1); // no end record: the agent is still at work
    writeFileSync(file, `${lines.slice(0, 2).join("\n")}\n`);
    const api = await serve([dir], { quietMs: 1500 });
    const [found] = await api.list();
    expect(found).toMatchObject({ live: false, status: "incomplete", events: 2 }); // a file found as it is: saved
    appendFileSync(file, `${lines[2]}\n`);
    expect(await api.list()).toMatchObject([{ id: found?.id, live: true, status: "running", events: 3 }]);
    const stream = openSse(server?.origin ?? "", `/api/sessions/${found?.id}/events`, { Authorization: `Bearer ${server?.token}` });
    await stream.waitFor((frame) => frame.id === "2");
    appendFileSync(file, `${lines.slice(3).join("\n")}\n`);
    await stream.waitFor((frame) => frame.id === "6");
    await stream.waitFor((frame) => frame.event === "end"); // quiet for 1.5 s: nothing more is expected
    expect(await api.list()).toMatchObject([{ id: found?.id, live: false, status: "incomplete", events: 7 }]);
  });
});
