/**
 * The five AAEP v1 handshake and reply messages (`schemas/handshake/*.schema.json` of Ramseyxlil/aaep at
 * 04c3dab4), transcribed in our words with the same constraints, examples left out. They have no envelope
 * (no `@context`, `event_id` or `session_id`) and are closed at the top level; a capability object accepts
 * extra keys only as objects (extension namespaces). The AAEP suite validates them against these alone.
 *
 * This product includes work from the AAEP project (https://github.com/Ramseyxlil/aaep), founded by
 * Abdulrafiu Izuafa, licensed under CC-BY-4.0 and MIT.
 */

type Schema = Record<string, unknown>;

const VERSION: Schema = { type: "string", pattern: "^[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.-]+)?$" };
const BCP47 = "^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$";
const uri: Schema = { type: "string", format: "uri" };
const subscriptionId: Schema = { type: "string", pattern: "^sub_[A-Za-z0-9]{1,64}$" };
const replyToken: Schema = { type: "string", pattern: "^rpl_[A-Za-z0-9]{1,64}$" };
const names: Schema = { type: "array", items: { type: "string", minLength: 1, maxLength: 256 }, uniqueItems: true };

/** What a subscriber asks for and a producer honours: the same fields on both sides (defaults are the request's). */
const capabilities: Schema = {
  type: "object",
  properties: {
    max_events_per_second: { type: "integer", minimum: 1, maximum: 100000 },
    preferred_verbosity: { type: "string", enum: ["terse", "normal", "detailed"] },
    languages: { type: "array", items: { type: "string", pattern: BCP47 }, minItems: 1, maxItems: 32, uniqueItems: true },
    supports_confirmation_reply: { type: "boolean" },
    supports_clarification_reply: { type: "boolean" },
    coalesce_boundaries: {
      type: "array",
      items: { type: "string", enum: ["none", "word", "sentence", "paragraph", "completion"] },
      minItems: 1,
      maxItems: 5,
      uniqueItems: true,
    },
    event_filters: { type: "object", properties: { include: names, exclude: names }, additionalProperties: false },
    supported_conformance_levels: {
      type: "array",
      items: { type: "integer", enum: [1, 2, 3] },
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
    },
    supported_extensions: { type: "array", items: uri, maxItems: 64, uniqueItems: true },
    cognitive_load: { type: "string", enum: ["low", "medium", "high"] },
    pace_wpm: { type: "integer", minimum: 50, maximum: 1000 },
    accept_signed_manifests_only: { type: "boolean" },
  },
  additionalProperties: { type: "object" },
};

/** A closed message: `type` is the constant, then the listed fields only. */
function message(type: string, required: readonly string[], properties: Schema): Schema {
  return {
    type: "object",
    required: ["type", ...required],
    properties: { type: { const: type }, ...properties },
    additionalProperties: false,
  };
}

/** The handshake and reply messages by type. */
export const AAEP_HANDSHAKE: Readonly<Record<string, Schema>> = {
  "subscription.request": message("subscription.request", ["aaep_version", "subscriber_id", "capabilities"], {
    aaep_version: VERSION,
    subscriber_id: { type: "string", minLength: 1, maxLength: 256 },
    subscriber_name: { type: "string", maxLength: 256 },
    subscriber_version: { type: "string", maxLength: 64 },
    subscriber_manifest_uri: uri,
    correlation_id: { type: "string" },
    capabilities,
    extensions: { type: "object", additionalProperties: { type: "object" } },
  }),
  "subscription.accepted": message("subscription.accepted", ["subscription_id", "aaep_version", "producer", "honored_capabilities"], {
    subscription_id: subscriptionId,
    aaep_version: VERSION,
    producer: { $ref: "#/$defs/Producer" },
    honored_capabilities: capabilities,
    manifest_uri: uri,
    signed_manifest: { type: "string", pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$" },
    negotiation_notes: { type: "string", maxLength: 4096 },
  }),
  "subscription.rejected": message("subscription.rejected", ["reason_code", "reason_message"], {
    reason_code: {
      type: "string",
      enum: [
        "version_unsupported",
        "manifest_signature_required",
        "capabilities_incompatible",
        "rate_limit",
        "authentication_required",
        "authorization_denied",
        "transport_unavailable",
        "unknown",
      ],
    },
    reason_message: { type: "string", minLength: 1, maxLength: 4096 },
    retry_after_seconds: { type: "integer", minimum: 0, maximum: 86400 },
    alternative_manifest_uri: uri,
  }),
  "confirmation.reply": message("confirmation.reply", ["reply_token", "decision", "subscription_id", "timestamp"], {
    reply_token: replyToken,
    decision: { type: "string", enum: ["accept", "reject"] },
    subscription_id: subscriptionId,
    timestamp: { type: "string", format: "date-time" },
    decided_by: { type: "string", minLength: 1, maxLength: 256 },
    decision_rationale: { type: "string", minLength: 1, maxLength: 4096 },
    modified_action: { type: "object" },
    correlation_id: { type: "string" },
  }),
  "clarification.reply": message("clarification.reply", ["reply_token", "response", "subscription_id", "timestamp"], {
    reply_token: replyToken,
    response: { oneOf: [{ type: "string", minLength: 1, maxLength: 16384 }, { type: "boolean" }, { type: "number" }] },
    subscription_id: subscriptionId,
    timestamp: { type: "string", format: "date-time" },
    decided_by: { type: "string", minLength: 1, maxLength: 256 },
    confidence: { type: "number", minimum: 0, maximum: 1 },
    correlation_id: { type: "string" },
  }),
};

/** The types of the handshake and reply messages: records with no envelope. */
export const AAEP_HANDSHAKE_TYPES: readonly string[] = Object.keys(AAEP_HANDSHAKE);
