// validate checks what it was given (unredacted), says what it found (redacted), reports a cut stream,
// and holds a Witness stream to the seed's line rules: new types allowed, a line that is not JSON rejected.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";

async function validate(args: string[], stdin: string) {
  const io = fakeIo({ stdin });
  const code = await run(["validate", ...args], io);
  return { code, err: io.err(), out: io.out() };
}

const lines = (records: readonly unknown[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join("");

describe("validate reads the input unredacted; what it prints is redacted", () => {
  const envelope = (type: string, n: number, fields: Record<string, unknown>) => ({
    "@context": "https://aaep-protocol.org/context/v1",
    type,
    event_id: `evt_c${n}`,
    session_id: "sess_c1",
    timestamp: `2026-05-24T10:00:0${n}Z`,
    producer: { agent_id: "bank-assistant" },
    ...fields,
  });
  // The reply token of AAEP's own confirmation example: long enough to look like a secret to the redactor.
  const session = [
    envelope("aaep:agent.session.started", 0, { summary_normal: "Started." }),
    envelope("aaep:agent.awaiting.confirmation", 1, {
      urgency: "critical",
      action: "Transfer $500.00 from checking to savings.",
      consequence: "Funds move immediately.",
      reply_token: "rpl_4f8a2e7d9c1b6a3f",
      timeout_seconds: 300,
      default_decision: "reject",
    }),
    envelope("aaep:agent.session.completed", 2, { summary_normal: "Done." }),
  ];

  it("an AAEP confirmation keeps its reply_token while checked: valid, nothing redacted", async () => {
    const result = await validate(["--format", "aaep"], lines(session));
    expect(result.err).toBe("valid: 3 records checked, 0 issues\n");
    expect(result.code).toBe(0);
  });

  it("a reply logged between the events is checked against its handshake schema and is in no session", async () => {
    const reply = {
      type: "confirmation.reply",
      reply_token: "rpl_4f8a2e7d9c1b6a3f",
      decision: "reject",
      subscription_id: "sub_8a4f2c9d",
      timestamp: "2026-05-24T10:00:02Z",
    };
    const withReply = [session[0], session[1], reply, session[2]];
    expect((await validate(["--format", "aaep"], lines(withReply))).code).toBe(0);
    const broken = await validate(["--format", "aaep"], lines([session[0], session[1], { ...reply, decision: "maybe" }, session[2]]));
    expect(broken.err).toMatch(/^<stdin>:3: schema-mismatch: decision must be one of \["accept","reject"\]$/m);
    expect(broken.code).toBe(1);
  });

  const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUV";
  const orphanOutput = [{ type: "start" }, { type: "tool-output-available", toolCallId: secret, output: "x" }, { type: "finish" }];

  it("an issue that quotes a secret from the input prints it redacted (stderr and --json)", async () => {
    const result = await validate(["--format", "ai-sdk"], lines(orphanOutput));
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/tool-output-available for tool call "\[REDACTED:[a-z-]+\]"/);
    expect(result.err).not.toContain(secret);
    const json = await validate(["--format", "ai-sdk", "--json"], lines(orphanOutput));
    expect(json.out).not.toContain(secret);
    expect(JSON.parse(json.out).issues[0].message).toMatch(/\[REDACTED:/);
  });

  it("--no-redact prints it as it is", async () => {
    const result = await validate(["--format", "ai-sdk", "--no-redact"], lines(orphanOutput));
    expect(result.err).toContain(`tool call "${secret}"`);
  });
});

describe("a stream cut before its run ends is an issue (exit 1)", () => {
  const agUiDir = sharedPath("fixtures/protocols/ag-ui");
  const capture = hasShared ? readdirSync(agUiDir).find((name) => name.startsWith("Step02_BackendTools")) : undefined;
  const records = (): Record<string, unknown>[] =>
    JSON.parse(readFileSync(join(agUiDir, capture as string), "utf8").replace(/^\uFEFF/, "")) as Record<string, unknown>[];

  it.skipIf(!hasShared)("AG-UI: a real server stream without its RUN_FINISHED", async () => {
    const cut = records().slice(0, -1);
    const runId = String(cut[0]?.runId);
    const result = await validate(["--format", "ag-ui"], lines(cut));
    expect(result.err).toContain(
      `<stdin>:0: out-of-order: the stream ended inside run "${runId}": no RUN_FINISHED or RUN_ERROR (a client waiting on it would hang)`,
    );
    expect(result.code).toBe(1);
  });

  it.skipIf(!hasShared)("AG-UI: cut inside an open message, the open ids are named", async () => {
    const all = records();
    const at = all.findIndex((r) => r.type === "TEXT_MESSAGE_CONTENT");
    const result = await validate(["--format", "ag-ui"], lines(all.slice(0, at + 1)));
    expect(result.err).toMatch(/the stream ended inside run "[^"]+" with text messages "[^"]+" still active/);
    expect(result.code).toBe(1);
  });

  it.skipIf(!hasShared)("AG-UI: a run that ends with RUN_ERROR has ended (exit 0)", async () => {
    const all = records().slice(0, -1);
    const result = await validate(["--format", "ag-ui"], lines([...all, { type: "RUN_ERROR", message: "the model went away" }]));
    expect(result.err).toBe(`valid: ${all.length + 1} records checked, 0 issues\n`);
    expect(result.code).toBe(0);
  });

  it.skipIf(!hasShared)("AI SDK: our own stream of a real capture without its finish chunk", async () => {
    const convert = fakeIo();
    await run(["convert", "--to", "ai-sdk", sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl")], convert);
    const chunks = convert.out().trim().split("\n");
    expect(JSON.parse(chunks[chunks.length - 1] as string).type).toBe("finish");
    const whole = await validate(["--format", "ai-sdk"], `${chunks.join("\n")}\n`);
    expect(whole.code).toBe(0);
    const cut = await validate(["--format", "ai-sdk"], `${chunks.slice(0, -1).join("\n")}\n`);
    expect(cut.err).toContain(
      "<stdin>:0: out-of-order: the stream ended before its finish chunk: a client waiting on it would hang (send finish)",
    );
    expect(cut.code).toBe(1);
  });

  it.each([
    ["error", { type: "error", errorText: "rate limited" }],
    ["abort", { type: "abort" }],
  ])("AI SDK: a stream that ends with an %s chunk has ended (exit 0)", async (_name, last) => {
    const stream = [{ type: "start" }, { type: "start-step" }, { type: "finish-step" }, last];
    const result = await validate(["--format", "ai-sdk"], lines(stream));
    expect(result.err).toBe("valid: 4 records checked, 0 issues\n");
    expect(result.code).toBe(0);
  });
});

describe("validate --format witness follows the seed's validator", () => {
  it("a type the spec does not list is allowed: an info issue, shown with -v, exit 0", async () => {
    const stream = lines([
      { type: "analysis", content: "Thinking...", brain: "path1" },
      { type: "plan", content: "1. read 2. answer" },
      { type: "final", content: "Done.", brain: "path2" },
    ]);
    const result = await validate(["--format", "witness"], stream);
    expect(result.err).toBe("valid: 3 records checked, 0 issues\n");
    expect(result.code).toBe(0);
    const verbose = await validate(["--format", "witness", "-v"], stream);
    expect(verbose.err).toMatch(/^<stdin>:2: unknown-record: type "plan" is not one of the spec's types/m);
    expect(verbose.code).toBe(0);
    const json = await validate(["--format", "witness", "--json"], stream);
    expect(JSON.parse(json.out)).toMatchObject({ valid: true, issues: [] });
  });

  it("a line that is not JSON fails, as validate_ndjson_line says (exit 1)", async () => {
    const stream = `${lines([{ type: "analysis", content: "hi" }])}This is not JSON\n${lines([{ type: "final", content: "ok" }])}`;
    const result = await validate(["--format", "witness"], stream);
    expect(result.err).toContain(
      '<stdin>:2: non-json-line: not a JSON record: a witness stream has one JSON object per line ("This is not JSON")',
    );
    expect(result.err).toMatch(/^invalid: 2 records checked, 1 issue$/m);
    expect(result.code).toBe(1);
  });
});
