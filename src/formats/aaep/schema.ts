/**
 * The AAEP v1 event schemas as one JSON Schema 2020-12 document, written by us from the AAEP
 * specification's schemas (the envelope and the 12 core events of Ramseyxlil/aaep at 04c3dab4,
 * `schemas/envelope.schema.json` and `schemas/core/*.schema.json`). The constraints are the same;
 * the wording is ours and the examples are left out.
 *
 * This product includes work from the AAEP project (https://github.com/Ramseyxlil/aaep), founded by
 * Abdulrafiu Izuafa, licensed under CC-BY-4.0 and MIT.
 *
 * An event validates against the envelope and, for the 12 core `aaep:` types, against that type's
 * definition; any other type (an extension such as `agentstream:usage`) against the envelope only,
 * as the AAEP conformance suite does; a handshake or reply message (src/formats/aaep/handshake-schema.ts) against
 * its own schema alone. Tests check this document against the upstream files.
 */

import { AAEP_HANDSHAKE, AAEP_HANDSHAKE_TYPES } from "./handshake-schema.ts";

type Schema = Record<string, unknown>;

/** The AAEP core JSON-LD context; `@context` is this string or an array that starts with it. */
export const AAEP_CONTEXT = "https://aaep-protocol.org/context/v1";

const BCP47 = "^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$";
const text = (max: number): Schema => ({ type: "string", minLength: 1, maxLength: max });
const terse = text(4096);
const normal = text(16384);
const durationMs: Schema = { type: "integer", minimum: 0, maximum: 86400000 };
const summaries: Schema = { summary_terse: terse, summary_normal: normal, summary_detailed: normal };
const replyToken: Schema = { type: "string", pattern: "^rpl_[A-Za-z0-9]{1,64}$" };
const toolName: Schema = { type: "string", minLength: 1, maxLength: 256, pattern: "^[A-Za-z_][A-Za-z0-9_.-]{0,255}$" };
const toolCallId: Schema = { type: "string", pattern: "^call_[A-Za-z0-9]{1,64}$" };
const timeout: Schema = { type: "integer", minimum: 1, maximum: 86400 };
const critical: Schema = { const: "critical" };

const envelope: Schema = {
  type: "object",
  required: ["@context", "type", "event_id", "session_id", "timestamp", "producer"],
  properties: {
    "@context": {
      oneOf: [
        { type: "string", const: AAEP_CONTEXT },
        { type: "array", minItems: 1, items: { type: "string", format: "uri" }, prefixItems: [{ type: "string", const: AAEP_CONTEXT }] },
      ],
    },
    aaep_version: { type: "string", pattern: "^[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.-]+)?$" },
    type: { type: "string", minLength: 1 },
    event_id: { type: "string", pattern: "^evt_[A-Za-z0-9]{1,64}$" },
    session_id: { type: "string", pattern: "^sess_[A-Za-z0-9]{1,64}$" },
    sequence_number: { type: "integer", minimum: 0 },
    timestamp: { type: "string", format: "date-time" },
    producer: { $ref: "#/$defs/Producer" },
    verbosity: { type: "string", enum: ["terse", "normal", "detailed"] },
    urgency: { type: "string", enum: ["background", "normal", "critical"] },
    localization_hints: { $ref: "#/$defs/LocalizationHints" },
    correlation_id: { type: "string" },
    extensions: { type: "object", additionalProperties: { type: "object" } },
  },
};

/** Per core type (without the `aaep:` prefix): required fields and properties beyond the envelope. */
const core: Record<string, { required: string[]; properties: Schema; allOf?: Schema[] }> = {
  "agent.session.started": {
    required: ["summary_normal"],
    properties: {
      ...summaries,
      expected_duration_ms: durationMs,
      requested_by: text(256),
      request_text: { type: "string", maxLength: 16384 },
      tools_available: { type: "array", items: text(256), maxItems: 256, uniqueItems: true },
    },
  },
  "agent.session.completed": {
    required: ["summary_normal"],
    properties: {
      ...summaries,
      duration_ms: durationMs,
      tool_invocations_count: { type: "integer", minimum: 0 },
      output_summary: { type: "string", maxLength: 16384 },
      result_uri: { type: "string", format: "uri" },
    },
  },
  "agent.session.errored": {
    required: ["error_category", "summary_normal"],
    properties: {
      urgency: critical,
      error_category: { type: "string", enum: ["transient", "permanent", "requires_user", "unknown"] },
      ...summaries,
      error_code: { type: "string", pattern: "^[A-Z][A-Z0-9_]{1,63}$" },
      error_uri: { type: "string", format: "uri" },
      recoverable: { type: "boolean" },
      remediation_hint: terse,
    },
  },
  "agent.session.cancelled": {
    required: ["cancelled_by", "summary_normal"],
    properties: {
      cancelled_by: { type: "string", enum: ["user", "producer", "timeout", "system"] },
      ...summaries,
      cancellation_reason: { type: "string", pattern: "^[a-z][a-z0-9_]{1,63}$" },
      partial_result: { type: "string", maxLength: 16384 },
    },
  },
  "agent.state.changed": {
    required: ["from_state", "to_state"],
    properties: { from_state: text(64), to_state: text(64), ...summaries, expected_duration_ms: durationMs },
  },
  "agent.progress.updated": {
    required: ["progress"],
    properties: {
      progress: {
        type: "object",
        minProperties: 1,
        properties: {
          percent: { type: "number", minimum: 0, maximum: 100 },
          step: { type: "integer", minimum: 1 },
          total_steps: { type: "integer", minimum: 1 },
          description: terse,
        },
        additionalProperties: false,
        anyOf: [{ required: ["percent"] }, { required: ["step"] }, { required: ["total_steps"] }, { required: ["description"] }],
      },
      ...summaries,
      eta_ms: durationMs,
    },
  },
  "agent.tool.invoked": {
    required: ["tool", "summary_normal"],
    properties: {
      tool: toolName,
      ...summaries,
      description: terse,
      args_summary: { type: "string", maxLength: 16384 },
      expected_duration_ms: durationMs,
      risk_level: { type: "string", enum: ["low", "medium", "high"] },
      irreversible: { type: "boolean" },
      tool_call_id: toolCallId,
    },
  },
  "agent.tool.completed": {
    required: ["tool", "status"],
    properties: {
      tool: toolName,
      status: { type: "string", enum: ["success", "error", "timeout"] },
      tool_call_id: toolCallId,
      duration_ms: durationMs,
      ...summaries,
      error_message: terse,
    },
  },
  "agent.output.streaming": {
    required: ["chunk", "position", "complete"],
    properties: {
      chunk: { type: "string", maxLength: 16384 },
      position: { type: "integer", minimum: 0 },
      complete: { type: "boolean" },
      coalesce_hint: { type: "string", enum: ["none", "word", "sentence", "paragraph", "completion"] },
      output_id: { type: "string", pattern: "^out_[A-Za-z0-9]{1,64}$" },
      content_type: { type: "string", pattern: "^[a-zA-Z][a-zA-Z0-9.+_-]*/[a-zA-Z][a-zA-Z0-9.+_-]*$" },
      language: { type: "string", pattern: BCP47 },
    },
  },
  "agent.awaiting.confirmation": {
    required: ["action", "consequence", "reply_token", "timeout_seconds", "default_decision"],
    properties: {
      urgency: critical,
      action: normal,
      consequence: normal,
      reply_token: replyToken,
      timeout_seconds: timeout,
      default_decision: { type: "string", enum: ["accept", "reject"] },
      ...summaries,
      risk_level: { type: "string", enum: ["low", "medium", "high"] },
      irreversible: { type: "boolean" },
      reversibility: { type: "string", enum: ["reversible", "reversible_with_effort", "irreversible"] },
      allowed_replies: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 32, uniqueItems: true },
      extra_context: { type: "object" },
    },
    // Safety (spec ch. 6 §6.4.1): an irreversible medium- or high-risk action defaults to reject.
    allOf: [
      {
        if: {
          properties: { irreversible: { const: true }, risk_level: { enum: ["high", "medium"] } },
          required: ["irreversible", "risk_level"],
        },
        then: { properties: { default_decision: { const: "reject" } } },
      },
    ],
  },
  "agent.awaiting.clarification": {
    required: ["question", "reply_token", "timeout_seconds"],
    properties: {
      urgency: critical,
      question: normal,
      reply_token: replyToken,
      timeout_seconds: timeout,
      ...summaries,
      accepted_response_kinds: {
        type: "array",
        items: { type: "string", enum: ["freetext", "yes_no", "multiple_choice", "numeric"] },
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
      },
      choices: {
        type: "array",
        items: {
          type: "object",
          required: ["value", "label"],
          properties: { value: text(256), label: text(1024) },
          additionalProperties: false,
        },
        minItems: 2,
        maxItems: 32,
        uniqueItems: true,
      },
      context: terse,
      default_response: { type: "string", maxLength: 4096 },
    },
  },
  "agent.handoff.requested": {
    required: ["reason", "target_kind"],
    properties: {
      urgency: critical,
      reason: normal,
      target_kind: { type: "string", enum: ["human", "specialist_agent", "escalation_queue"] },
      target_uri: { type: "string", format: "uri" },
      packaged_context: { type: "object" },
      urgency_for_handoff: { type: "string", enum: ["low", "medium", "high"] },
      ...summaries,
    },
  },
};

/** L1-SAFETY-007: secret markers that must not appear in what a subscriber reads aloud (case-insensitive). */
const AAEP_SECRET_MARKERS: readonly string[] = [
  "password",
  "api_key",
  "secret_key",
  "private_key",
  "bearer ",
  "authorization:",
  "x-api-key",
  "ssh-rsa",
  "ssh-ed25519",
  "begin private key",
  "begin rsa private key",
  "aws_secret",
  "github_pat_",
  "github_token",
  "ghp_",
  "sk-",
];

/** The first secret marker in `text`, if any. */
export function aaepSecretMarker(text: string): string | undefined {
  const lower = text.toLowerCase();
  return AAEP_SECRET_MARKERS.find((marker) => lower.includes(marker));
}

/** Code points in a string: AAEP positions and lengths count characters as JSON Schema does. */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The event types that must carry `urgency: "critical"` (the schemas say const but not required). */
export const AAEP_CRITICAL_TYPES: readonly string[] = [
  "aaep:agent.session.errored",
  "aaep:agent.awaiting.confirmation",
  "aaep:agent.awaiting.clarification",
  "aaep:agent.handoff.requested",
];

/** The terminal event types of a session. */
export const AAEP_TERMINAL_TYPES: readonly string[] = [
  "aaep:agent.session.completed",
  "aaep:agent.session.errored",
  "aaep:agent.session.cancelled",
];

/** One AAEP event: the envelope, then the core type's own rules. */
export const aaepSchema: Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/aaep.schema.json",
  title: "AAEP v1 event (envelope and the 12 core events) or handshake message",
  description:
    "One AAEP event, written from the AAEP v1 schemas (https://github.com/Ramseyxlil/aaep, CC-BY-4.0 and MIT). Core `aaep:` types are checked against their own definition; the five handshake and reply messages (no envelope) against theirs; other types against the envelope only.",
  allOf: [
    // A handshake or reply message has no envelope: it is checked against its own schema alone, as the suite does.
    {
      if: { properties: { type: { enum: [...AAEP_HANDSHAKE_TYPES] } }, required: ["type"] },
      then: true,
      else: { $ref: "#/$defs/Envelope" },
    },
    ...[...AAEP_HANDSHAKE_TYPES, ...Object.keys(core)].map((type) => ({
      if: { properties: { type: { const: type in core ? `aaep:${type}` : type } }, required: ["type"] },
      then: { $ref: `#/$defs/${type}` },
    })),
  ],
  $defs: {
    Envelope: envelope,
    ...AAEP_HANDSHAKE,
    Producer: {
      type: "object",
      required: ["agent_id"],
      properties: {
        agent_id: { type: "string", minLength: 1 },
        agent_version: { type: "string" },
        agent_name: { type: "string" },
        model: { type: "string" },
        manifest_uri: { type: "string", format: "uri" },
      },
      additionalProperties: false,
    },
    LocalizationHints: {
      type: "object",
      properties: {
        primary_language: { type: "string", pattern: BCP47 },
        text_direction: { type: "string", enum: ["ltr", "rtl", "auto"] },
        available_languages: { type: "array", items: { type: "string", pattern: BCP47 }, maxItems: 32, uniqueItems: true },
        fallback_chain: { type: "array", items: { type: "string", pattern: BCP47 }, maxItems: 16 },
        script: { type: "string", pattern: "^[A-Z][a-z]{3}$" },
        calendar: { type: "string" },
      },
      additionalProperties: false,
    },
    ...Object.fromEntries(
      Object.entries(core).map(([type, def]) => [
        type,
        {
          type: "object",
          required: ["type", ...def.required],
          properties: { type: { const: `aaep:${type}` }, ...def.properties },
          ...(def.allOf === undefined ? {} : { allOf: def.allOf }),
        },
      ]),
    ),
  },
};
