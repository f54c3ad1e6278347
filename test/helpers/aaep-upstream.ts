/**
 * The upstream AAEP v1 JSON Schemas, read in place from ../shared/specs/aaep/schemas (never copied),
 * compiled the way the AAEP conformance suite validates: the envelope (registered under its `$id`),
 * then the core schema of the event's type; extension types against the envelope only. Formats are
 * checked: `date-time` with the suite's RFC 3339 rule (L1-ENV-004), `uri` as scheme + rest.
 */
import { readdirSync, readFileSync } from "node:fs";
import Ajv2020Module from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { hasShared, sharedPath } from "./shared.ts";

type Ajv2020Class = typeof Ajv2020Module.default;
const Ajv2020: Ajv2020Class =
  (Ajv2020Module as unknown as { default?: Ajv2020Class }).default ?? (Ajv2020Module as unknown as Ajv2020Class);

interface Upstream {
  envelope: ValidateFunction;
  core: Map<string, ValidateFunction>;
  /** The handshake and reply messages (no envelope), by type. */
  handshake: Map<string, ValidateFunction>;
  /** Every `examples` entry of the envelope, core and handshake schemas, with the type it belongs to. */
  examples: { schema: string; value: unknown }[];
}

let loaded: Upstream | undefined;

/** The compiled upstream schemas; undefined without ../shared. */
export function upstreamAaep(): Upstream | undefined {
  if (!hasShared) return undefined;
  if (loaded !== undefined) return loaded;
  const dir = sharedPath("specs", "aaep", "schemas");
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i);
  ajv.addFormat("uri", /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/);
  const envelopeSchema = JSON.parse(readFileSync(`${dir}/envelope.schema.json`, "utf8")) as { $id: string; examples?: unknown[] };
  ajv.addSchema(envelopeSchema);
  const examples: Upstream["examples"] = (envelopeSchema.examples ?? []).map((value) => ({ schema: "envelope", value }));
  const core = new Map<string, ValidateFunction>();
  for (const file of readdirSync(`${dir}/core`)) {
    const schema = JSON.parse(readFileSync(`${dir}/core/${file}`, "utf8")) as { examples?: unknown[] };
    const type = `aaep:${file.replace(/\.schema\.json$/, "")}`;
    core.set(type, ajv.compile(schema));
    for (const value of schema.examples ?? []) examples.push({ schema: type, value });
  }
  const handshake = new Map<string, ValidateFunction>();
  for (const file of readdirSync(`${dir}/handshake`)) {
    const schema = JSON.parse(readFileSync(`${dir}/handshake/${file}`, "utf8")) as { examples?: unknown[] };
    const type = file.replace(/\.schema\.json$/, "");
    handshake.set(type, ajv.compile(schema));
    for (const value of schema.examples ?? []) examples.push({ schema: type, value });
  }
  loaded = { envelope: ajv.getSchema(envelopeSchema.$id) as ValidateFunction, core, handshake, examples };
  return loaded;
}

/** Upstream schema errors for one event (empty when valid), as the suite checks it: envelope, then its core type; a handshake message alone. */
export function upstreamErrors(upstream: Upstream, event: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const type = String(event.type);
  // A handshake or reply message has no envelope: the suite checks it against its own schema alone.
  const handshake = upstream.handshake.get(type);
  if (handshake !== undefined)
    return handshake(event) ? [] : (handshake.errors ?? []).map((e) => `${type} ${e.instancePath} ${e.message ?? ""}`);
  if (!upstream.envelope(event))
    errors.push(...(upstream.envelope.errors ?? []).map((e) => `envelope ${e.instancePath} ${e.message ?? ""}`));
  const core = upstream.core.get(type);
  if (core !== undefined && !core(event)) errors.push(...(core.errors ?? []).map((e) => `${type} ${e.instancePath} ${e.message ?? ""}`));
  return errors;
}
