/**
 * `agentstream serve --nats` against a real nats-server (JetStream, loopback) and, for the page,
 * chromium: sessions published with `agentstream publish` (real captures and synthetic) are listed
 * beside the served files and open with every event once, in order; a session published while the
 * page is open appears and grows live; hostile text published through NATS renders inert; a NATS
 * server that is down (at start, or stopped later) leaves the files served and is shown unavailable.
 * Skips with one line when nats-server (or, for the page, chromium or dist/) is absent.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { createFleetSessions, fleetSessionId } from "../../src/fleet/fleet-sessions.ts";
import { createPublisher, type Publisher } from "../../src/fleet/publisher.ts";
import { sessionSubject } from "../../src/fleet/subjects.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { loadWebAssets } from "../../src/server/assets.ts";
import { createCatalog } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import type { SourceStatus } from "../../src/server/session-source.ts";
import { hasBrowser, launchBrowser, noBrowserReason } from "../helpers/browser.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hostileSessionEvents, INERT, openWatchedPage, pageVerdict, xssPayloads } from "../helpers/hostile-page.ts";
import { httpGet, openSse } from "../helpers/http.ts";
import { freePort, NATS_SKIP_REASON, natsServerPath, startNatsServer, type NatsServer } from "../helpers/nats-server.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

if (natsServerPath === undefined) console.warn(`[agentstream tests] ${NATS_SKIP_REASON}`);
const built = existsSync(join(repoRoot, "dist/web/app.js"));
if (!hasBrowser) console.warn(`[agentstream tests] ${noBrowserReason}`);
else if (!built) console.warn("[agentstream tests] dist/ not built: the page tests of test/fleet/nats-serve.test.ts are skipped");

const synthetic = join(repoRoot, "test/fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");
const captures = hasShared
  ? [
      sharedPath("fixtures/claude/archistrator_success_with_subagent.jsonl"),
      sharedPath("fixtures/codex/finnamon_bash_file_change_started_mcp_denied.jsonl"),
    ]
  : [];

/** A file's events as `convert --to agentstream` writes them: what `publish` sends. */
async function converted(file: string): Promise<AgentEvent[]> {
  const io = fakeIo();
  await run(["convert", "--to", "agentstream", file], io);
  return io
    .out()
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as AgentEvent);
}

/** Waits until `check` gives a value (polling, as the page does). */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A synthetic Claude-read session, seq from 0: started, `count` answers, and (with `end`) completed. */
function syntheticSession(session: string, from: number, count: number, end: boolean): AgentEvent[] {
  const source = { dialect: "claude" };
  const time = new Date().toISOString();
  const events: AgentEvent[] = [];
  if (from === 0) events.push({ v: 1, seq: 0, time, type: "session.started", sessionId: session, cwd: "/work/live", model: "m-1", source });
  for (let i = Math.max(from, 1); i < from + count; i++)
    events.push({
      v: 1,
      seq: i,
      time,
      type: "message.completed",
      messageId: `m${i}`,
      role: "assistant",
      kind: "text",
      text: `answer ${i}`,
      sessionId: session,
      source,
    });
  if (end) events.push({ v: 1, seq: from + count, time, type: "session.completed", status: "success", sessionId: session, source });
  return events;
}

describe.skipIf(natsServerPath === undefined)("serve --nats with a real nats-server", () => {
  let nats: NatsServer;
  let server: SessionServer;
  let auth: Record<string, string>;
  let browser: Browser | undefined;
  const publishers: Publisher[] = [];

  const get = async <T>(path: string): Promise<T> => JSON.parse((await httpGet(server.origin, path, auth)).body) as T;
  const natsSessions = async (host: string): Promise<SessionInfo[]> =>
    (await get<SessionInfo[]>("/api/sessions")).filter((s) => s.host === host);
  const publisher = (host: string): Publisher => {
    const created = createPublisher({
      connection: { servers: nats.url },
      stream: { name: "AGENTSTREAM" },
      host,
      // The publishers are closed in afterAll: their spools stay until the file ends.
      spoolDir: tempDir("serve-nats", { until: "file" }),
      spoolMaxBytes: 64 << 20,
    });
    publishers.push(created);
    return created;
  };
  /** Every event of a session's stream, until its `end`. */
  const streamed = async (id: string): Promise<AgentEvent[]> => {
    const sse = openSse(server.origin, `/api/sessions/${id}/events`, auth);
    await sse.waitFor((frame) => frame.event === "end");
    sse.close();
    return sse.frames.filter((f) => f.event === "message").map((f) => JSON.parse(f.data) as AgentEvent);
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    // The synthetic fixture is served as a file too: the list shows it twice (file, NATS), with the same facts.
    const fleet = createFleetSessions({
      connection: { servers: nats.url },
      stream: "AGENTSTREAM",
      filter: {},
      since: undefined,
      redact: true,
      retryMs: 200,
    });
    const catalog = await createCatalog({
      paths: [synthetic, ...captures],
      read: { dialect: "auto", redact: true },
      rescanMs: 0,
      sources: [fleet],
    });
    server = await startServer({ catalog, assets: loadWebAssets() });
    auth = { Authorization: `Bearer ${server.token}` };
    if (hasBrowser && built) browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const p of publishers) await p.close(0);
    await browser?.close();
    await server?.close();
    await nats?.stop();
  });

  it("sessions published with `agentstream publish` are listed beside the files and open with every event once, in order", async () => {
    const files = [...captures, synthetic];
    const io = fakeIo();
    expect(await run(["publish", nats.url, "--spool", tempDir("serve-nats"), "--host", "ci.runner-1", ...files], io)).toBe(0);
    // Each file is served too: its NATS entry says what its file entry says, from its opening events and its end (the
    // start is the first time among the opening events: the Claude capture dates only later ones, so it is left out).
    const facts = ["agent", "agentVersion", "model", "cwd", "status", "live", "events", "cost"] as const;
    const same = (a: SessionInfo, b: SessionInfo): boolean => facts.every((fact) => JSON.stringify(a[fact]) === JSON.stringify(b[fact]));
    const listed = await until("the published sessions, with their facts", async () => {
      const all = await get<SessionInfo[]>("/api/sessions");
      const fromFiles = files.map((file) => all.find((s) => s.file === file) as SessionInfo);
      const found = all.filter((s) => s.host === "ci.runner-1");
      return found.length === files.length && fromFiles.every((f) => found.some((s) => same(s, f))) ? found : undefined;
    });
    for (const entry of listed)
      expect(entry).toMatchObject({ host: "ci.runner-1", file: null, id: expect.stringMatching(/^nats-[A-Za-z0-9_-]{16}$/) });
    const fileEntry = (await get<SessionInfo[]>("/api/sessions")).find((s) => s.file === synthetic) as SessionInfo;
    expect(fileEntry.host).toBeNull();
    const fromNats = listed.find((s) => same(s, fileEntry)) as SessionInfo;

    const expected = await Promise.all(files.map(converted));
    const got = await Promise.all(listed.map((s) => streamed(s.id)));
    const key = (events: readonly AgentEvent[]): string => JSON.stringify(events[0]);
    expect(got.map(key).sort()).toEqual(expected.map(key).sort());
    for (const events of got) expect(events).toEqual(expected.find((e) => key(e) === key(events)));
    // Once open, the list shows the whole fold, as for a file.
    expect((await get<SessionInfo>(`/api/sessions/${fromNats.id}`)).tokens).toEqual(fileEntry.tokens);
    expect(await get<SourceStatus[]>("/api/sources")).toEqual([
      { kind: "nats", description: `${nats.url} stream AGENTSTREAM`, state: "available", detail: null },
    ]);
  });

  it("the command: `agentstream serve --nats` (built binary) lists the stream's sessions and says what it reads", async () => {
    const bin = join(repoRoot, "dist/cli/bin.js");
    if (!existsSync(bin)) return;
    const child = spawn(process.execPath, [bin, "serve", "--nats", nats.url, "--since", "1h", "--agent-host", "ci.runner-1"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const url = await new Promise<URL>((resolve) =>
        child.stdout.once("data", (chunk: Buffer) => resolve(new URL(chunk.toString().trim()))),
      );
      const token = { Authorization: `Bearer ${url.searchParams.get("token")}` };
      const listed = await until("the sessions through the command", async () => {
        const all = JSON.parse((await httpGet(url.origin, "/api/sessions", token)).body) as SessionInfo[];
        return all.length === captures.length + 1 ? all : undefined;
      });
      // --agent-host and no path: only the stream's sessions of that host, no walk of the current folder.
      expect(listed.every((s) => s.host === "ci.runner-1")).toBe(true);
      expect(stderr).toContain(`also listing the sessions of ${nats.url} stream AGENTSTREAM`);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("a session published while a viewer streams it grows live; Last-Event-ID resumes without a gap or a duplicate", async () => {
    const live = publisher("live-host");
    for (const event of syntheticSession("grows", 0, 5, false)) live.event(event);
    const id = fleetSessionId(sessionSubject({ host: "live-host", agent: "claude", session: "grows" }));
    const info = await until("the live session", async () =>
      (await natsSessions("live-host")).find((s) => s.id === id && s.events === 5 && s.cwd !== null),
    );
    expect(info).toMatchObject({ live: true, status: "running", cwd: "/work/live", model: "m-1", agent: "claude" });
    const sse = openSse(server.origin, `/api/sessions/${id}/events`, auth);
    await sse.waitFor((frame) => frame.id === "4");
    for (const event of syntheticSession("grows", 5, 5, false)) live.event(event);
    await sse.waitFor((frame) => frame.id === "9");
    sse.close();
    const resumed = openSse(server.origin, `/api/sessions/${id}/events`, { ...auth, "Last-Event-ID": "7" });
    for (const event of syntheticSession("grows", 10, 2, true)) live.event(event);
    await resumed.waitFor((frame) => frame.event === "end");
    expect(resumed.frames.filter((f) => f.event === "message").map((f) => Number(f.id))).toEqual([8, 9, 10, 11, 12]);
    await until("the end in the list", async () => ((await natsSessions("live-host"))[0]?.status === "success" ? true : undefined));
  });

  it("a transcript published after the fact with no end record is not running, and its stream ends", async () => {
    const saved = publisher("saved-host");
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    const events = syntheticSession("yesterday", 0, 4, false).map((event) => ({ ...event, time: dayAgo }) as AgentEvent);
    for (const event of events) saved.event(event);
    await saved.close(10_000);
    const id = fleetSessionId(sessionSubject({ host: "saved-host", agent: "claude", session: "yesterday" }));
    const info = await until("the saved session", async () =>
      (await natsSessions("saved-host")).find((s) => s.id === id && s.events === 4),
    );
    expect(info).toMatchObject({ live: false, status: "incomplete", host: "saved-host", prompt: null });
    expect((await streamed(id)).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(await get<SessionInfo>(`/api/sessions/${id}`)).toMatchObject({ live: false, status: "incomplete", host: "saved-host" });
  });

  it("a run's session found when serve starts: ended with its totals and host, and opened with its exit notice", async () => {
    const run = publisher("run-host");
    // More events than the list reads to open a session (its start and first prompt): the totals are only at the end.
    const ran = syntheticSession("finished", 0, 20, true);
    ran[1] = { ...(ran[1] as AgentEvent), role: "user", text: "fix the tests" } as AgentEvent;
    const completed = ran.at(-1) as AgentEvent;
    const usage = { inputTokens: 1200, outputTokens: 34, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
    ran[ran.length - 1] = { ...completed, usage, costUsd: 0.25 } as AgentEvent;
    // What `agentstream run --publish` publishes last: the agent's exit, after the session's own end.
    const exit = {
      v: 1,
      seq: ran.length,
      time: completed.time,
      type: "notice",
      kind: "exit",
      level: "info",
      text: "the agent exited with code 0",
      sessionId: "finished",
    };
    for (const event of [...ran, exit as AgentEvent]) run.event(event);
    await run.close(10_000);
    // A server started now finds the session's last message (the exit notice), not its `session.completed`.
    const fresh = createFleetSessions({
      connection: { servers: nats.url },
      stream: "AGENTSTREAM",
      filter: { host: "run-host" },
      since: undefined,
      redact: true,
    });
    const later = await startServer({
      catalog: await createCatalog({ paths: [], read: { dialect: "auto" }, sources: [fresh] }),
      assets: { script: "", css: "" },
    });
    try {
      const token = { Authorization: `Bearer ${later.token}` };
      const list = async (): Promise<SessionInfo[]> =>
        JSON.parse((await httpGet(later.origin, "/api/sessions", token)).body) as SessionInfo[];
      const id = fleetSessionId(sessionSubject({ host: "run-host", agent: "claude", session: "finished" }));
      const info = await until("the run's totals", async () => (await list()).find((s) => s.id === id && s.cost !== null && !s.live));
      expect(info).toMatchObject({ status: "success", host: "run-host", cost: 0.25, events: ran.length + 1, prompt: "fix the tests" });
      expect(info.tokens).toMatchObject({ inputTokens: 1200, outputTokens: 34 });
      const sse = openSse(later.origin, `/api/sessions/${id}/events`, token);
      await sse.waitFor((frame) => frame.event === "end");
      const shown = sse.frames.filter((f) => f.event === "message").map((f) => JSON.parse(f.data) as AgentEvent);
      expect(shown.at(-1)).toMatchObject({ type: "notice", kind: "exit" });
      expect(shown).toHaveLength(ran.length + 1);
      const opened = JSON.parse((await httpGet(later.origin, `/api/sessions/${id}`, token)).body) as SessionInfo;
      expect(opened).toMatchObject({ host: "run-host", live: false, status: "success" });
      expect((await list()).find((s) => s.id === id)).toMatchObject({ host: "run-host", live: false, status: "success" });
    } finally {
      await later.close();
    }
  });

  it("a live session whose events stopped and whose publisher is gone stops running once it has been quiet long enough", async () => {
    const quiet = createFleetSessions({
      connection: { servers: nats.url },
      stream: "AGENTSTREAM",
      filter: { host: "quiet-host" },
      since: undefined,
      redact: true,
      quietMs: 1500,
    });
    try {
      const gone = publisher("quiet-host");
      for (const event of syntheticSession("killed", 0, 2, false)) gone.event(event);
      await gone.close(10_000);
      const running = await until("the session running", async () => quiet.list().find((s) => s.events === 2 && s.live) ?? undefined);
      expect(running).toMatchObject({ status: "running", host: "quiet-host" });
      const over = await until("the session over", async () => quiet.list().find((s) => s.id === running.id && !s.live));
      expect(over).toMatchObject({ status: "incomplete", host: "quiet-host" });
    } finally {
      quiet.close();
    }
  });

  it("the page: a session published while it is open appears in the list and grows live", async (context) => {
    if (browser === undefined) return context.skip();
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.locator(".as-list-item").first().waitFor();
    const live = publisher("page-host");
    for (const event of syntheticSession("on-page", 0, 3, false)) live.event(event);
    const id = fleetSessionId(sessionSubject({ host: "page-host", agent: "claude", session: "on-page" }));
    const item = page.locator(`.as-list-item[data-session="${id}"]`);
    await item.waitFor({ timeout: 20_000 });
    expect(await item.locator(".as-list-where").textContent()).toBe("page-host · /work/live");
    await item.click();
    const pane = page.locator(`.as-pane[data-session="${id}"]`);
    await pane.locator("[data-seq='2']").waitFor();
    for (const event of syntheticSession("on-page", 3, 4, true)) live.event(event);
    await page.locator(`.as-pane[data-session="${id}"][data-ended='yes']`).waitFor();
    expect(await pane.textContent()).toContain("answer 6");
    await page.close();
  });

  it.skipIf(!hasShared)("hostile text published through NATS renders inert on the page", { timeout: 180_000 }, async (context) => {
    if (browser === undefined) return context.skip();
    // NATS takes messages up to 1 MB by default: the 5 MB payload cannot be published (the live page test has it).
    const all = xssPayloads().filter((p) => p.text.length < 100_000);
    const hostile = publisher("xss-host");
    for (const [n, { text }] of all.entries()) for (const event of hostileSessionEvents(text, true, `xss-${n}`)) hostile.event(event);
    expect((await hostile.close(30_000)).published).toBe(all.length * 13);
    // No dialect read these events: the subject's agent is the one the session names (the payload).
    const ids = all.map(({ text }, n) => fleetSessionId(sessionSubject({ host: "xss-host", agent: text, session: `xss-${n}` })));
    const { page, dialogs, foreign } = await openWatchedPage(browser, server.origin, server.url);
    for (const id of ids) {
      await page.locator(`.as-list-item[data-session="${id}"]`).click({ timeout: 20_000 });
      const pane = page.locator(`.as-pane[data-session="${id}"]`);
      await pane.and(page.locator("[data-ended='yes']")).waitFor();
      await pane.hover();
      await pane.locator(".as-pane-close").click();
    }
    for (const id of ids.slice(0, 4)) await page.locator(`.as-list-item[data-session="${id}"]`).click();
    await page.locator(".as-pane[data-ended='yes']").nth(3).waitFor();
    expect(await pageVerdict(page)).toEqual(INERT);
    expect(dialogs).toEqual([]);
    expect(foreign).toEqual([]);
    expect(await page.locator(".as-pane").first().textContent()).toContain("<script>window.__xss=1</script>");
    await page.close();
  });

  it("the NATS server stopped: the files are still served, the stream shows as unavailable, and comes back", async (context) => {
    await nats.kill();
    try {
      await until("the source unavailable", async () =>
        (await get<SourceStatus[]>("/api/sources"))[0]?.state === "unavailable" ? true : undefined,
      );
      const list = await get<SessionInfo[]>("/api/sessions");
      const file = list.find((s) => s.file === synthetic) as SessionInfo;
      expect(file).toBeDefined();
      expect((await streamed(file.id)).length).toBe(file.events);
      expect(list.some((s) => s.host === "ci.runner-1")).toBe(true); // what was known stays listed
      if (browser !== undefined) {
        const page = await browser.newPage();
        await page.goto(server.url);
        await page.locator(`.as-connection[data-sources="nats:unavailable"]`).waitFor();
        expect(await page.locator(".as-connection").textContent()).toMatch(/stream AGENTSTREAM: unavailable/);
        await page.close();
      } else context.annotate("chromium absent: the page's line not checked");
    } finally {
      await nats.restart();
    }
    await until("the source back", async () => ((await get<SourceStatus[]>("/api/sources"))[0]?.state === "available" ? true : undefined));
  });
});

describe.skipIf(natsServerPath === undefined)("serve --nats with no NATS server", () => {
  it("a server down at start: the files are listed, the stream says it cannot connect, and it connects once the server is up", async () => {
    const port = await freePort();
    const told: string[] = [];
    const fleet = createFleetSessions({
      connection: { servers: `nats://127.0.0.1:${port}` },
      stream: "AGENTSTREAM",
      filter: {},
      since: undefined,
      redact: true,
      retryMs: 100,
      onStatus: (status) => told.push(`${status.state}: ${status.detail}`),
    });
    const catalog = await createCatalog({ paths: [synthetic], read: { dialect: "auto", redact: true }, sources: [fleet] });
    const server = await startServer({ catalog, assets: { script: "", css: "" } });
    try {
      const auth = { Authorization: `Bearer ${server.token}` };
      const list = JSON.parse((await httpGet(server.origin, "/api/sessions", auth)).body) as SessionInfo[];
      expect(list.map((s) => s.file)).toEqual([synthetic]);
      const sources = async (): Promise<SourceStatus[]> =>
        JSON.parse((await httpGet(server.origin, "/api/sources", auth)).body) as SourceStatus[];
      expect((await sources())[0]).toMatchObject({ kind: "nats", description: `nats://127.0.0.1:${port} stream AGENTSTREAM` });
      const down = await until("the failed connection said", async () =>
        (await sources())[0]?.state === "unavailable" ? (await sources())[0] : undefined,
      );
      expect(down?.detail).toMatch(/^cannot connect: /);
      // The server comes up later on that address: the source connects by itself, and says the stream is not there yet.
      const late = await startNatsServer([], port);
      try {
        const missing = async (): Promise<true | undefined> =>
          (await sources())[0]?.detail?.includes("no stream AGENTSTREAM") ? true : undefined;
        await until("the late server reached", missing);
      } finally {
        await late.stop();
      }
      // Each change was told once (for serve's stderr), not each retry.
      const cannotConnect = told.findIndex((t) => t.startsWith("unavailable: cannot connect: "));
      expect(cannotConnect).toBeGreaterThanOrEqual(0);
      expect(told.findIndex((t) => t.startsWith("unavailable: no stream AGENTSTREAM"))).toBeGreaterThan(cannotConnect);
      expect(told.filter((t, i) => t === told[i - 1])).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
