/**
 * The JSON Schema of one agentstream event. It lives in src/validation/ because `validateEvent`
 * (which decoders of embedded events use, a layer below the formats) needs it; this is its place
 * in the agentstream format's folder.
 */
export { agentstreamSchema } from "../../validation/agent-event-schema.ts";
