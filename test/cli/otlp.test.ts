/**
 * `agentstream otlp <endpoint> <paths…>`: saved sessions sent to a receiver on 127.0.0.1, decoded with the official
 * OTLP definitions (protobuf by default, JSON on request); each session once (the state file), again only when its
 * file changed, with the same ids; `--since`; the endpoint down; a state file that is not a regular file.
 */
import { copyFileSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { freePort } from "../helpers/nats-server.ts";
import { startReceiver, type Receiver } from "../helpers/otlp.ts";
import { sharedPath, hasShared } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function sessionsFolder(): string {
  const dir = tempDir("otlp-sessions");
  for (const name of ["background-agent-second-init-two-results.ndjson", "edit-write-todowrite-file-changed-plan.ndjson"])
    copyFileSync(fixturePath("claude", name), join(dir, name.replace(".ndjson", ".jsonl")));
  writeFileSync(join(dir, "notes.txt"), "not a session\n");
  return dir;
}

const roots = (r: Receiver) => r.requests().flatMap((request) => request.spans.filter((span) => span.parentSpanId === ""));

describe("agentstream otlp", () => {
  it("sends every session under a folder once, protobuf by default; a changed file again, with the same ids", async () => {
    receiver = await startReceiver();
    const state = tempDir("otlp-state");
    const folder = sessionsFolder();
    const io = fakeIo({ env: { XDG_STATE_HOME: state, OTEL_SERVICE_NAME: "agents", OTEL_EXPORTER_OTLP_HEADERS: "api-key=secret-key" } });
    expect(await run(["otlp", receiver.origin, folder], io)).toBe(0);
    expect(io.err()).toMatch(/2 session files exported \(\d+ spans\) .*, 0 already exported/);
    expect(receiver.received.every((r) => r.contentType === "application/x-protobuf" && r.headers["api-key"] === "secret-key")).toBe(true);
    const first = roots(receiver);
    expect(first).toHaveLength(2);
    expect(first.every((span) => span.name === "invoke_agent claude-code")).toBe(true);
    expect(receiver.requests()[0]?.resource["service.name"]).toBe("agents");
    expect(readdirSync(join(state, "agentstream"))).toEqual(["otlp-exported.json"]);

    const again = fakeIo({ env: { XDG_STATE_HOME: state } });
    expect(await run(["otlp", receiver.origin, folder], again)).toBe(0);
    expect(again.err()).toMatch(/0 session files exported .*, 2 already exported/);
    expect(roots(receiver)).toHaveLength(2);

    const file = join(folder, "edit-write-todowrite-file-changed-plan.jsonl");
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await run(["otlp", receiver.origin, folder], fakeIo({ env: { XDG_STATE_HOME: state } }))).toBe(0);
    const all = roots(receiver);
    expect(all).toHaveLength(3);
    expect(first.map((span) => span.spanId)).toContain(all[2]?.spanId);
  });

  it("sends OTLP/JSON when OTEL_EXPORTER_OTLP_PROTOCOL says so, or --protocol", async () => {
    receiver = await startReceiver();
    const folder = sessionsFolder();
    const env = { XDG_STATE_HOME: tempDir("otlp-state"), OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
    expect(await run(["otlp", receiver.origin, folder], fakeIo({ env }))).toBe(0);
    expect(receiver.received.every((r) => r.contentType === "application/json")).toBe(true);
    expect(roots(receiver)).toHaveLength(2);
    expect(
      await run(
        ["otlp", "--protocol", "http/protobuf", receiver.origin, folder],
        fakeIo({ env: { XDG_STATE_HOME: tempDir("otlp-state-2") } }),
      ),
    ).toBe(0);
    expect(receiver.received.at(-1)?.contentType).toBe("application/x-protobuf");
  });

  it("--since leaves out files older than that", async () => {
    receiver = await startReceiver();
    const folder = sessionsFolder();
    const old = new Date(Date.now() - 10 * 86_400_000);
    utimesSync(join(folder, "background-agent-second-init-two-results.jsonl"), old, old);
    const io = fakeIo({ env: { XDG_STATE_HOME: tempDir("otlp-state") } });
    expect(await run(["otlp", receiver.origin, folder, "--since", "7d"], io)).toBe(0);
    expect(roots(receiver)).toHaveLength(1);
    const bad = fakeIo();
    expect(await run(["otlp", receiver.origin, folder, "--since", "soon"], bad)).toBe(2);
    expect(bad.err()).toMatch(/--since takes 7d, 12h, 30m or a day/);
  });

  it("says so and exits 1 when the endpoint is down; nothing is remembered as sent", async () => {
    const port = await freePort();
    const state = tempDir("otlp-state");
    const io = fakeIo({ env: { XDG_STATE_HOME: state, OTEL_EXPORTER_OTLP_TIMEOUT: "200" } });
    const file = fixturePath("claude", "edit-write-todowrite-file-changed-plan.ndjson");
    const started = Date.now();
    expect(await run(["otlp", `http://127.0.0.1:${port}`, file], io)).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(io.err()).toMatch(/ECONNREFUSED/);
    expect(io.err()).toMatch(/0 session files exported .*1 failed/);
    receiver = await startReceiver();
    const later = fakeIo({ env: { XDG_STATE_HOME: state } });
    expect(await run(["otlp", receiver.origin, file], later)).toBe(0);
    expect(roots(receiver)).toHaveLength(1);
  }, 40_000);

  it("refuses a state file that is not a regular file", async () => {
    receiver = await startReceiver();
    const state = tempDir("otlp-state");
    mkdirSync(join(state, "agentstream"));
    symlinkSync("/etc/passwd", join(state, "agentstream", "otlp-exported.json"));
    const io = fakeIo({ env: { XDG_STATE_HOME: state } });
    expect(await run(["otlp", receiver.origin, fixturePath("claude", "edit-write-todowrite-file-changed-plan.ndjson")], io)).toBe(3);
    expect(io.err()).toMatch(/otlp-exported\.json is not a regular file/);
    expect(receiver.received).toHaveLength(0);
  });

  it("starts afresh, and says so, from a state file it cannot read", async () => {
    receiver = await startReceiver();
    const state = tempDir("otlp-state");
    mkdirSync(join(state, "agentstream"));
    writeFileSync(join(state, "agentstream", "otlp-exported.json"), "{not json");
    const io = fakeIo({ env: { XDG_STATE_HOME: state } });
    expect(await run(["otlp", receiver.origin, fixturePath("claude", "edit-write-todowrite-file-changed-plan.ndjson")], io)).toBe(0);
    expect(io.err()).toMatch(/could not be read .* every session counts as not exported yet/);
    expect(roots(receiver)).toHaveLength(1);
  });

  it("sends content only with --capture-content, redacted", async () => {
    receiver = await startReceiver();
    const dir = tempDir("otlp-secret");
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    const file = join(dir, "secret.jsonl");
    const line = (record: object): string => `${JSON.stringify(record)}\n`;
    writeFileSync(
      file,
      line({ type: "system", subtype: "init", session_id: "sec", model: "claude-sonnet-4-5", tools: ["Bash"] }) +
        line({
          type: "assistant",
          session_id: "sec",
          message: {
            id: "m1",
            role: "assistant",
            content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: `export KEY=${secret}` } }],
          },
        }) +
        line({
          type: "user",
          session_id: "sec",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
        }) +
        line({ type: "result", subtype: "success", session_id: "sec", result: "done", is_error: false }),
    );
    expect(await run(["otlp", receiver.origin, file], fakeIo({ env: { XDG_STATE_HOME: tempDir("otlp-state") } }))).toBe(0);
    const plain = receiver.requests().flatMap((request) => request.spans);
    expect(plain.some((span) => "gen_ai.tool.call.arguments" in span.attributes)).toBe(false);
    expect(
      await run(["otlp", "--capture-content", receiver.origin, file], fakeIo({ env: { XDG_STATE_HOME: tempDir("otlp-state") } })),
    ).toBe(0);
    const bodies = receiver.received.map((r) => Buffer.from(r.body).toString("latin1")).join("");
    expect(bodies).not.toContain(secret);
    const tool = receiver
      .requests()
      .flatMap((request) => request.spans)
      .find((span) => "gen_ai.tool.call.arguments" in span.attributes);
    expect(tool?.attributes["gen_ai.tool.call.arguments"]).toMatch(/export KEY=\[REDACTED/);
  });

  it("run --otlp refuses --no-redact: exported spans are always redacted", async () => {
    const io = fakeIo();
    expect(await run(["run", "--otlp", "http://127.0.0.1:4318", "--no-redact", "--", "agentstream-no-such-agent"], io)).toBe(2);
    expect(io.err()).toMatch(/--no-redact with --otlp/);
  });

  it.runIf(hasShared)("sends every dialect's saved sessions (the real Claude, Codex and Gemini session logs)", async () => {
    receiver = await startReceiver();
    const paths = ["claude-session", "codex-session", "gemini-session"].map((dialect) => sharedPath("fixtures", dialect));
    const io = fakeIo({ env: { XDG_STATE_HOME: tempDir("otlp-state") } });
    expect(await run(["otlp", receiver.origin, ...paths, "-q"], io)).toBe(0);
    const names = new Set(roots(receiver).map((span) => span.name));
    expect(names).toEqual(new Set(["invoke_agent claude-code", "invoke_agent codex", "invoke_agent gemini-cli"]));
  });
});
