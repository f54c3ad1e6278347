/**
 * Where and how spans are exported: the standard `OTEL_EXPORTER_OTLP_*` variables, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_SERVICE_NAME` and `OTEL_SEMCONV_STABILITY_OPT_IN` read as the OpenTelemetry SDKs read them (the
 * specification's "OTLP Exporter Configuration"); command-line flags override them (docs/otel.md).
 */
import { AgentStreamError } from "../errors.ts";

/** The OTLP/HTTP encodings we send; gRPC is not supported (the CLI has no gRPC stack). */
export type OtlpProtocol = "http/protobuf" | "http/json";

export interface OtlpExportConfig {
  /** The full traces URL (`…/v1/traces`). */
  readonly url: string;
  readonly protocol: OtlpProtocol;
  readonly headers: Readonly<Record<string, string>>;
  /** Per request, as `OTEL_EXPORTER_OTLP_TIMEOUT` (default 10 s). */
  readonly timeoutMs: number;
}

/** What the flags say; each overrides its environment variable. */
export interface OtlpFlags {
  readonly endpoint?: string | undefined;
  readonly protocol?: string | undefined;
  readonly headers?: string | undefined;
  readonly timeout?: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_ENDPOINT = "http://localhost:4318";
const TRACES_PATH = "/v1/traces";
const DEFAULT_TIMEOUT_MS = 10_000;

function set(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/**
 * The export configuration. An endpoint given on the command line is a base URL like `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (`/v1/traces` is appended unless it already ends so); `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as it is.
 */
export function otlpExportConfig(flags: OtlpFlags, env: Env): OtlpExportConfig {
  const url = tracesUrl(set(flags.endpoint), env);
  const protocol =
    set(flags.protocol) ?? set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    throw new AgentStreamError("usage", `OTLP protocol "${protocol}" is not supported: use http/protobuf or http/json`);
  const headers = {
    ...parsePairs(env.OTEL_EXPORTER_OTLP_HEADERS, "OTEL_EXPORTER_OTLP_HEADERS"),
    ...parsePairs(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    ...parsePairs(flags.headers, "--headers"),
  };
  const timeoutText = set(flags.timeout) ?? set(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) ?? set(env.OTEL_EXPORTER_OTLP_TIMEOUT);
  const timeoutMs = timeoutText === undefined ? DEFAULT_TIMEOUT_MS : Number(timeoutText);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new AgentStreamError("usage", `OTLP timeout "${timeoutText}" is not a positive number of milliseconds`);
  return { url, protocol, headers, timeoutMs };
}

function tracesUrl(endpoint: string | undefined, env: Env): string {
  const signal = endpoint === undefined ? set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) : undefined;
  const base = endpoint ?? set(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? DEFAULT_ENDPOINT;
  const raw = signal ?? (base.replace(/\/+$/, "").endsWith(TRACES_PATH) ? base : `${base.replace(/\/+$/, "")}${TRACES_PATH}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AgentStreamError("usage", `OTLP endpoint "${raw}" is not a URL (e.g. http://localhost:4318)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new AgentStreamError("usage", `OTLP endpoint "${raw}": only http:// and https:// are supported`);
  return url.toString();
}

/** `key=value,key=value` with percent-encoded keys and values (the W3C Baggage form the specification names). */
function parsePairs(text: string | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const item of text.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    if (at <= 0) throw new AgentStreamError("usage", `${what}: "${item.trim()}" is not key=value`);
    try {
      out[decodeURIComponent(item.slice(0, at).trim())] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new AgentStreamError("usage", `${what}: "${item.trim()}" is not percent-encoded correctly`);
    }
  }
  return out;
}

/** The resource's attributes: `OTEL_RESOURCE_ATTRIBUTES`, with `OTEL_SERVICE_NAME` over its `service.name`. */
export function resourceAttributesFromEnv(env: Env): Record<string, string> {
  const attributes = parsePairs(env.OTEL_RESOURCE_ATTRIBUTES, "OTEL_RESOURCE_ATTRIBUTES");
  const service = set(env.OTEL_SERVICE_NAME);
  if (service !== undefined) attributes["service.name"] = service;
  return attributes;
}

/** `OTEL_SEMCONV_STABILITY_OPT_IN` names `gen_ai_latest_experimental`: write the pinned conventions only. */
export function latestConventionsOnly(env: Env): boolean {
  return (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? "").split(",").some((value) => value.trim() === "gen_ai_latest_experimental");
}
