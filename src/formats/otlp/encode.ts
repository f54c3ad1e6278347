/**
 * `convert --to otlp`: one OTLP/JSON `ExportTraceServiceRequest` per session (a line each), the spans of
 * src/formats/otlp/spans.ts. The JSON is written here, not by @opentelemetry/otlp-transformer, because the core
 * imports no package (it runs in browsers); test/formats/otlp/encode.test.ts checks it decodes with the official
 * protobuf definitions and equals what otlp-transformer writes for the same spans. The exporter (src/otel/) sends
 * through otlp-transformer itself.
 */
import type { EncoderOptions, RecordEncoder } from "../../encoding/record-encoder.ts";
import { VERSION } from "../../version.ts";
import { GENERAL } from "./attributes.ts";
import { SpanMapper } from "./spans.ts";
import {
  type AttributeValue,
  type FinishedSpan,
  type OtlpAnyValue,
  type OtlpKeyValue,
  type OtlpSpan,
  type OtlpTraceRequest,
  SPAN_FLAGS,
  type SpanAttributes,
} from "./wire.ts";

/** The instrumentation scope of every span we write. */
export const OTLP_SCOPE = { name: "agentstream", version: VERSION } as const;

/** The resource when nothing names one: the service is agentstream. */
export function resourceOf(attributes: Readonly<Record<string, string>> | undefined): SpanAttributes {
  return { [GENERAL.serviceName]: "agentstream", ...attributes };
}

/** The streaming encoder for `--to otlp`: the spans of a session are held until it ends, then written as one request. */
export function createOtlpEncoder(options: EncoderOptions = {}): RecordEncoder<OtlpTraceRequest> {
  const resource = resourceOf(options.resourceAttributes);
  let spans: FinishedSpan[] = [];
  let ready: OtlpTraceRequest[] = [];
  const mapper = new SpanMapper(
    {
      ...(options.captureContent === undefined ? {} : { captureContent: options.captureContent }),
      ...(options.latestConventionsOnly === undefined ? {} : { latestConventionsOnly: options.latestConventionsOnly }),
      ...(options.run === undefined ? {} : { fallbackSessionId: options.run.runId }),
      ...(options.sessionFacts === undefined ? {} : { sessionFacts: options.sessionFacts }),
    },
    (span) => spans.push(span),
    () => {
      if (spans.length > 0) ready.push(traceRequest(spans, resource));
      spans = [];
    },
  );
  const take = (): OtlpTraceRequest[] => {
    const out = ready;
    ready = [];
    return out;
  };
  return {
    encode(event) {
      mapper.add(event);
      return ready.length === 0 ? ready : take();
    },
    end() {
      mapper.end();
      return take();
    },
  };
}

/** One `ExportTraceServiceRequest` holding `spans` under one resource and our scope. */
export function traceRequest(spans: readonly FinishedSpan[], resource: SpanAttributes): OtlpTraceRequest {
  return {
    resourceSpans: [{ resource: { attributes: keyValues(resource) }, scopeSpans: [{ scope: OTLP_SCOPE, spans: spans.map(otlpSpan) }] }],
  };
}

function otlpSpan(span: FinishedSpan): OtlpSpan {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: unixNano(span.startMs),
    endTimeUnixNano: unixNano(span.endMs),
    attributes: keyValues(span.attributes),
    status: span.status,
    flags: SPAN_FLAGS,
  };
}

/** Milliseconds (possibly fractional) as the decimal string of nanoseconds, exact for any time of this era. */
function unixNano(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  return (BigInt(whole) * 1_000_000n + BigInt(nanos)).toString();
}

function keyValues(attributes: SpanAttributes): OtlpKeyValue[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function anyValue(value: AttributeValue): OtlpAnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } };
}
