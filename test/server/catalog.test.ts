/**
 * The catalog behind `agentstream serve` (src/server/catalog.ts), through its HTTP API: a file
 * rewritten after it was read is read anew, a served folder that does not exist yet is listed once
 * it appears, and what the list says of each session (title or first prompt, running or ended,
 * subagent files under their parent).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { createCatalog, MISSING_PATH, type CatalogOptions } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import { httpGet, openSse } from "../helpers/http.ts";
import { readAll } from "../helpers/read.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const synthetic = join(repoRoot, "test/fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");

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
