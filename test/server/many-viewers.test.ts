/**
 * `agentstream serve` with many viewers of one live run log (127.0.0.1 only): 50 real SSE clients of
 * one session while its log grows. One follower of the log whatever the number of viewers, every
 * viewer gets every event once and in order, the list answers meanwhile, and closing the server
 * leaves no descriptor of the log open.
 */
import { appendFileSync, existsSync, readdirSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCatalog } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import { httpGet, openSse, type SseStream } from "../helpers/http.ts";
import { tempDir } from "../helpers/temp.ts";

const VIEWERS = 50;
const LINES = 1000;

let server: SessionServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Descriptors this process holds on `file` (Linux: /proc/self/fd); undefined where that cannot be seen. */
function descriptorsOf(file: string): number | undefined {
  if (!existsSync("/proc/self/fd")) return undefined;
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) count++;
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return count;
}

/** Line `i` of a run log in our own format: an answer of a few hundred bytes. */
const line = (i: number): string =>
  `${JSON.stringify({ v: 1, seq: i, type: "message.completed", messageId: `m${i}`, role: "assistant", kind: "text", text: `answer ${i} `.repeat(40) })}\n`;

describe("many viewers of one live run", () => {
  it("streams to 50 SSE clients from one follower: every event once, in order; the list answers; close leaves no descriptor", async () => {
    const dir = tempDir("serve-viewers");
    const log = join(dir, "r.events.ndjson");
    writeFileSync(join(dir, "r.raw"), "");
    writeFileSync(log, line(0));
    const catalog = await createCatalog({ paths: [dir], read: { dialect: "auto", redact: true }, pollMs: 20, rescanMs: 0 });
    const started = await startServer({ catalog, assets: { script: "", css: "" } });
    server = started;
    const auth = { Authorization: `Bearer ${started.token}` };
    const list = async (): Promise<SessionInfo[]> => JSON.parse((await httpGet(started.origin, "/api/sessions", auth)).body);
    const [session] = await list();
    // Viewers arriving together (each request awaits the catalog before it is served) share one feed of the log.
    const opened = await Promise.all(Array.from({ length: VIEWERS }, () => catalog.feed(session?.id as string)));
    expect(new Set(opened).size).toBe(1);
    const viewers: SseStream[] = Array.from({ length: VIEWERS }, () =>
      openSse(started.origin, `/api/sessions/${session?.id}/events`, auth),
    );
    await Promise.all(viewers.map((viewer) => viewer.response));
    await Promise.all(viewers.map((viewer) => viewer.waitFor((frame) => frame.event === "message")));
    expect(started.viewers()).toBe(VIEWERS);
    // One follower whatever the number of viewers (each viewer used to open its own when they came together).
    const real = realpathSync(log);
    const held = descriptorsOf(real);
    if (held !== undefined) expect(held).toBe(1);

    for (let i = 1; i < LINES; i += 100) {
      appendFileSync(log, Array.from({ length: Math.min(100, LINES - i) }, (_, k) => line(i + k)).join(""));
      // The list goes on answering while every viewer is written to.
      expect((await httpGet(started.origin, "/api/sessions", auth)).status).toBe(200);
    }
    writeFileSync(join(dir, "r.summary.json"), "{}\n");
    await Promise.all(viewers.map((viewer) => viewer.waitFor((frame) => frame.event === "end")));

    const shown = (await list()).find((s) => s.id === session?.id);
    expect(shown?.events).toBeGreaterThanOrEqual(LINES);
    const expected = Array.from({ length: shown?.events ?? 0 }, (_, i) => String(i));
    for (const viewer of viewers) expect(viewer.frames.filter((f) => f.event === "message").map((f) => f.id)).toEqual(expected);

    await started.close();
    server = undefined;
    // The follower closes its file once its read in progress ends: wait for that, never for ever.
    for (let tries = 0; held !== undefined && (descriptorsOf(real) ?? 0) > 0 && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    if (held !== undefined) expect(descriptorsOf(real)).toBe(0);
  });
});
