/**
 * The `opencode-session` dialect: OpenCode's stored sessions, as src/usage/opencode.ts reads them out of its
 * database (our own capture, test/fixtures/opencode-session), decoded with the live stream's part mapping; and
 * `summary`, `render` and `html` reading a session by its reference.
 */
import { copyFileSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeDialect } from "../../../src/testing/index.ts";
import { opencodeSession } from "../../../src/agents/opencode/session.ts";
import { run } from "../../../src/cli/run.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { opencodeStore } from "../../../src/usage/opencode.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { ofType } from "../../helpers/events.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { readAll } from "../../helpers/read.ts";
import { repoRoot } from "../../helpers/shared.ts";
import { tempDir } from "../../helpers/temp.ts";

const SESSION = "ses_dcb8ada35ffefqQG3Xv570XUvO";

function database(): string {
  const db = join(tempDir("opencode-session"), "opencode.db");
  copyFileSync(join(repoRoot, "test/fixtures/opencode-session/opencode.db"), db);
  return db;
}

function linesOf(db: string): string[] {
  const read = opencodeStore.read(`${db}#${SESSION}`);
  if ("failed" in read) throw new Error(read.failed);
  return read.lines;
}

describe("opencode-session", () => {
  it("is detected, and decodes the prompt, the tool call, the answer and each step's usage", () => {
    const { dialect, events, issues } = readAll([`${linesOf(database()).join("\n")}\n`], { dialect: "auto" });
    expect(dialect).toBe(opencodeSession.name);
    expect(issues).toEqual([]);
    expect(ofType(events, "unknown")).toEqual([]);
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(checkSequence(events)).toEqual([]);
    expect(ofType(events, "session.started")[0]).toMatchObject({ sessionId: SESSION, agent: "opencode", agentVersion: "1.18.33" });
    const messages = ofType(events, "message.completed").map((m) => [m.role, m.text]);
    expect(messages).toEqual([
      ["user", '"Follow the scripted scenario."'],
      ["assistant", "Let me look."],
      ["assistant", "The command printed scripted-output."],
    ]);
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ name: "bash", output: "scripted-output\n", exitCode: 0 });
    expect(ofType(events, "turn.completed").map((t) => t.usage?.outputTokens)).toEqual([10, 40]);
    expect(ofType(events, "session.completed")[0]?.status).toBe("success");
  });

  it("says a row whose data is not JSON as a bad line and reads on", () => {
    const lines = linesOf(database());
    lines.splice(2, 0, "{not json");
    const { events, issues } = readAll([`${lines.join("\n")}\n`], { dialect: opencodeSession });
    expect(issues.length).toBeGreaterThan(0);
    expect(ofType(events, "session.completed")[0]?.status).toBe("success");
  });

  it("summary, render and html read a session by <database>#<session id>, and a database whole", async () => {
    const db = database();
    const ref = `${db}#${SESSION}`;
    const io = fakeIo({ env: { NO_COLOR: "1" } });
    expect(await run(["summary", ref, "--json"], io), io.err()).toBe(0);
    const summary = JSON.parse(io.out()) as {
      dialect: string;
      finalText: string;
      usage: Record<string, number>;
      durationMs: number | null;
    };
    expect(summary.dialect).toBe("opencode-session");
    // A saved session: its duration is the span of its timestamps.
    expect(summary.durationMs).toBeGreaterThan(0);
    expect(summary.finalText).toBe("The command printed scripted-output.");
    expect(summary.usage).toMatchObject({ inputTokens: 350, outputTokens: 50, cacheReadTokens: 200 });

    const rendered = fakeIo({ env: { NO_COLOR: "1" } });
    expect(await run(["render", ref], rendered), rendered.err()).toBe(0);
    expect(rendered.out()).toContain("echo scripted-output");

    const page = join(tempDir("opencode-html"), "session.html");
    const html = fakeIo({ env: { NO_COLOR: "1" } });
    expect(await run(["html", db, "-o", page], html), html.err()).toBe(0);
    expect(readFileSync(page, "utf8")).toContain("The command printed scripted-output.");
  });

  it("an assistant message that failed: its error, and the session ends in error (sessions says error too)", async () => {
    const db = database();
    const writer = new Database(db);
    const last = writer.prepare("SELECT id, data FROM message ORDER BY time_created DESC LIMIT 1").get() as { id: string; data: string };
    const data: Record<string, unknown> = {
      ...(JSON.parse(last.data) as Record<string, unknown>),
      error: { name: "APIError", data: { message: "scripted overload" } },
    };
    delete data.finish;
    writer.prepare("UPDATE message SET data = ? WHERE id = ?").run(JSON.stringify(data), last.id);
    writer.prepare("DELETE FROM part WHERE message_id = ? AND data LIKE '%step-finish%'").run(last.id);
    writer.close();
    const { events } = readAll([`${linesOf(db).join("\n")}\n`], { dialect: opencodeSession });
    expect(ofType(events, "error").map((e) => e.message)).toEqual(["scripted overload"]);
    expect(ofType(events, "session.completed")[0]).toMatchObject({ status: "error", error: "scripted overload" });
    const io = fakeIo({ env: { NO_COLOR: "1", XDG_CACHE_HOME: tempDir("opencode-error-cache") } });
    expect(await run(["sessions", db, "--json"], io), io.err()).toBe(0);
    expect((JSON.parse(io.out()) as { status: string }[])[0]?.status).toBe("error");
  });

  it("a session that is not in the database, or a file that is no database: an input error, not a crash", async () => {
    const db = database();
    const io = fakeIo({ env: { NO_COLOR: "1" } });
    expect(await run(["summary", `${db}#ses_gone`, "--json"], io)).not.toBe(0);
    expect(io.err()).toContain("no session ses_gone in the database");
    const junk = join(tempDir("opencode-junk"), "opencode.db");
    copyFileSync(join(repoRoot, "test/fixtures/opencode-session/README.md"), junk);
    const bad = fakeIo({ env: { NO_COLOR: "1" } });
    expect(await run(["html", junk, "-o", join(tempDir("opencode-junk-out"), "x.html")], bad)).not.toBe(0);
    expect(bad.err()).toContain("not an SQLite database");
  });
});

describeDialect(opencodeSession, { describe, it, expect }, { sample: `${linesOf(database()).join("\n")}\n` });
