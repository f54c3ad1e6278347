import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { aaep } from "../../../src/formats/aaep/decode.ts";
import { detectDialect } from "../../../src/dialects.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { upstreamAaep, upstreamErrors } from "../../helpers/aaep-upstream.ts";
import { records, validateFormat } from "../../helpers/convert.ts";
import { readAll } from "../../helpers/read.ts";
import { captureRecords, jsonRecord } from "../../helpers/records.ts";
import { hasShared } from "../../helpers/shared.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

const decode = (...lines: object[]) => readAll([`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`], { dialect: aaep, repair: false });
const shapes = (events: AgentEvent[]) => events.map(({ v, seq, source, ...rest }) => rest);
const T = "2026-05-24T14:22:11.342Z";
let n = 0;
const ev = (type: string, fields: object = {}) => ({
  "@context": "https://aaep-protocol.org/context/v1",
  type,
  event_id: `evt_${n++}`,
  session_id: "sess_s1",
  timestamp: T,
  producer: { agent_id: "helper", agent_version: "1.0.0" },
  ...fields,
});

describe("aaep: detection", () => {
  it.each([
    ["a core event", jsonRecord(ev("aaep:agent.session.started", { summary_normal: "x" })), true],
    [
      "an extension event with an array context",
      jsonRecord({ ...ev("medai:patient.consulted"), "@context": ["https://aaep-protocol.org/context/v1", "https://example.org/medai"] }),
      true,
    ],
    [
      "another JSON-LD context",
      jsonRecord({ ...ev("aaep:agent.session.started"), "@context": "https://www.w3.org/ns/activitystreams" }),
      false,
    ],
    [
      "a handshake message (no envelope)",
      jsonRecord({ type: "subscription.request", aaep_version: "1.0.0", subscriber_id: "x", capabilities: {} }),
      false,
    ],
  ])("%s", (_name, record, expected) => {
    expect(aaep.detect(record)).toBe(expected);
  });

  it("the registry picks aaep for an AAEP event", () => {
    expect(detectDialect(jsonRecord(ev("aaep:agent.output.streaming", { chunk: "", position: 0, complete: true })))?.name).toBe("aaep");
  });

  it.skipIf(!hasShared)("claims no record of any real capture", () => {
    const claimed = captureRecords().filter(({ record }) => aaep.detect(record));
    expect(claimed.map(({ file, record }) => `${file}:${record.line}`)).toEqual([]);
  });
});

describe("aaep: event shapes (another producer's events, no agentstream extension)", () => {
  it.each([
    [
      "session.started → session.started from the producer",
      [
        ev("aaep:agent.session.started", {
          summary_normal: "Planning.",
          tools_available: ["a"],
          producer: { agent_id: "planner", agent_version: "2", model: "m" },
        }),
      ],
      [
        {
          type: "session.started",
          agent: "planner",
          agentVersion: "2",
          model: "m",
          tools: ["a"],
          details: { summary_normal: "Planning." },
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
    [
      "chunks → one streamed message; complete=true completes it with the chunks' text",
      [
        ev("aaep:agent.output.streaming", { chunk: "Hel", position: 0, complete: false, output_id: "out_1", language: "en" }),
        ev("aaep:agent.output.streaming", { chunk: "lo", position: 3, complete: true, output_id: "out_1" }),
      ],
      [
        { type: "message.started", messageId: "out_1", role: "assistant", kind: "text", language: "en", sessionId: "sess_s1", time: T },
        {
          type: "message.delta",
          role: "assistant",
          kind: "text",
          messageId: "out_1",
          text: "Hel",
          position: 0,
          sessionId: "sess_s1",
          time: T,
        },
        {
          type: "message.delta",
          role: "assistant",
          kind: "text",
          messageId: "out_1",
          text: "lo",
          position: 3,
          sessionId: "sess_s1",
          time: T,
        },
        {
          type: "message.completed",
          messageId: "out_1",
          role: "assistant",
          kind: "text",
          text: "Hello",
          language: "en",
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
    [
      "tool invoked / completed without call ids pair by tool name",
      [
        ev("aaep:agent.tool.invoked", { tool: "search", summary_normal: "Searching." }),
        ev("aaep:agent.tool.completed", { tool: "search", status: "success", summary_normal: "3 hits.", duration_ms: 40 }),
      ],
      [
        { type: "tool.started", toolCallId: "call-1", name: "search", description: "Searching.", sessionId: "sess_s1", time: T },
        {
          type: "tool.completed",
          toolCallId: "call-1",
          name: "search",
          output: "3 hits.",
          isError: false,
          durationMs: 40,
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
    [
      "a timed-out tool is an error; its error_message is the output",
      [
        ev("aaep:agent.tool.invoked", { tool: "t", summary_normal: "s", tool_call_id: "call_9" }),
        ev("aaep:agent.tool.completed", { tool: "t", status: "timeout", tool_call_id: "call_9", error_message: "too slow" }),
      ],
      [
        { type: "tool.started", toolCallId: "call_9", name: "t", description: "s", sessionId: "sess_s1", time: T },
        {
          type: "tool.completed",
          toolCallId: "call_9",
          name: "t",
          output: "too slow",
          isError: true,
          result: { status: "timeout" },
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
    [
      "errored → session.completed error with its category",
      [
        ev("aaep:agent.session.errored", {
          urgency: "critical",
          error_category: "transient",
          summary_normal: "Upstream down.",
          error_code: "UPSTREAM",
        }),
      ],
      [
        {
          type: "session.completed",
          status: "error",
          error: "Upstream down.",
          details: { error_category: "transient", error_code: "UPSTREAM" },
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
    [
      "cancelled → session.completed interrupted",
      [ev("aaep:agent.session.cancelled", { cancelled_by: "user", summary_normal: "Stopped." })],
      [
        {
          type: "session.completed",
          status: "interrupted",
          error: "Stopped.",
          details: { cancelled_by: "user" },
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
    [
      "awaiting.confirmation → a warning notice with the request",
      [
        ev("aaep:agent.awaiting.confirmation", {
          urgency: "critical",
          action: "Delete it?",
          consequence: "Gone.",
          reply_token: "rpl_1",
          timeout_seconds: 60,
          default_decision: "reject",
        }),
      ],
      [
        {
          type: "notice",
          kind: "awaiting_confirmation",
          level: "warning",
          text: "Delete it?",
          details: {
            urgency: "critical",
            action: "Delete it?",
            consequence: "Gone.",
            reply_token: "rpl_1",
            timeout_seconds: 60,
            default_decision: "reject",
          },
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
    [
      "state.changed → an info notice",
      [ev("aaep:agent.state.changed", { from_state: "idle", to_state: "thinking" })],
      [
        {
          type: "notice",
          kind: "state_changed",
          level: "info",
          text: "idle → thinking",
          details: { from_state: "idle", to_state: "thinking" },
          sessionId: "sess_s1",
          time: T,
        },
      ],
    ],
  ])("%s", (_name, lines, expected) => {
    expect(shapes(decode(...lines).events)).toEqual(expected);
  });

  it("an extension type we do not know is kept verbatim and reported", () => {
    const line = { ...ev("medai:patient.consulted"), extensions: { medai: { x: 1 } } };
    const { events, issues } = decode(line);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "unknown", raw: line });
    expect(issues.map((i) => i.code)).toEqual(["unknown-record"]);
  });

  it("a chunk after its output completed is reported, never appended", () => {
    const { events, issues } = decode(
      ev("aaep:agent.output.streaming", { chunk: "a", position: 0, complete: true, output_id: "out_1" }),
      ev("aaep:agent.output.streaming", { chunk: "b", position: 1, complete: false, output_id: "out_1" }),
    );
    expect(events.filter((e) => e.type === "message.completed")).toHaveLength(1);
    expect(issues.map((i) => i.code)).toEqual(["out-of-order"]);
  });

  it("what our writer synthesized to satisfy AAEP reads back as nothing", () => {
    const synthesized = {
      extensions: { agentstream: { synthesized: true, session_id: null } },
      "@context": ["https://aaep-protocol.org/context/v1", "https://agentstream.dev/context/aaep/v1"],
    };
    expect(decode({ ...ev("aaep:agent.session.started", { summary_normal: "Session started." }), ...synthesized }).events).toEqual([]);
  });
});

describeDialect(
  aaep,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("aaep", "weather-agent-tool-and-output.ndjson"), "utf8") },
);
describeDialect(
  aaep,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("aaep", "transfer-confirmation-errored.ndjson"), "utf8") },
);

describe("aaep: fixtures", () => {
  it("the fixtures are valid AAEP: our validator finds nothing; the upstream schemas agree", () => {
    for (const name of ["weather-agent-tool-and-output.ndjson", "transfer-confirmation-errored.ndjson"]) {
      const text = readFileSync(fixturePath("aaep", name), "utf8");
      expect(validateFormat("aaep", text)).toEqual([]);
      const upstream = upstreamAaep();
      if (upstream !== undefined) for (const record of records(text)) expect(upstreamErrors(upstream, record)).toEqual([]);
    }
  });

  it("weather-agent: a tool call, a two-chunk answer, success", () => {
    const { summary, dialect } = readAll([readFileSync(fixturePath("aaep", "weather-agent-tool-and-output.ndjson"))]);
    expect(dialect).toBe("aaep");
    expect(summary).toMatchObject({
      agent: "weather-helper",
      agentVersion: "0.3.0",
      model: "small-model-1",
      sessionId: "sess_weather1",
      status: "success",
      durationMs: 1700,
    });
    expect(summary.finalText).toBe("Tomorrow in Lagos: rain is likely. Take an umbrella ☂️.");
    expect(summary.toolCalls).toEqual([{ id: "call-1", name: "get_forecast", status: "success" }]);
  });

  it("transfer: a confirmation, a timed-out transfer, a bilingual answer, an extension event, errored", () => {
    const { summary, events } = readAll([readFileSync(fixturePath("aaep", "transfer-confirmation-errored.ndjson"))]);
    expect(summary).toMatchObject({ status: "error", error: "The bank did not answer." });
    expect(summary.toolCalls).toEqual([{ id: "call_t1", name: "transfer", status: "error" }]);
    expect(summary.finalText).toBe("Ẹ jọ̀ọ́, the transfer did not go through.");
    expect(events.filter((e) => e.type === "notice").map((e) => (e.type === "notice" ? e.kind : ""))).toEqual(["awaiting_confirmation"]);
    expect(events.filter((e) => e.type === "unknown")).toHaveLength(1);
  });
});
