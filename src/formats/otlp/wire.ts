/**
 * The OTLP/JSON shapes we write: an `ExportTraceServiceRequest` as the OTLP specification's JSON encoding lays it
 * out (opentelemetry-proto `collector/trace/v1/trace_service.proto`, protobuf's JSON mapping with the OTLP rules:
 * ids as lower-case hex, enums as integers, 64-bit integers as decimal strings, field names in lowerCamelCase).
 */

/** An attribute value as our spans hold it, before it is written (arrays are homogeneous). */
export type AttributeValue = string | number | boolean | readonly string[];

/** A span's attributes by name. Integers stay integers (`intValue`); other numbers are doubles. */
export type SpanAttributes = Record<string, AttributeValue>;

/** `Span.SpanKind`. */
export const SPAN_KIND = { internal: 1, client: 3 } as const;
export type SpanKindValue = (typeof SPAN_KIND)[keyof typeof SPAN_KIND];

/** `Status.StatusCode`: unset (the conventions' choice for success), ok, error. */
export const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;
type StatusCodeValue = (typeof STATUS_CODE)[keyof typeof STATUS_CODE];

/** One finished span, in milliseconds: what the mapping produces and both the JSON writer and the exporter take. */
export interface FinishedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: SpanKindValue;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  readonly status: { readonly code: StatusCodeValue; readonly message?: string };
}

/** `common.v1.AnyValue` (only the cases we write). */
export type OtlpAnyValue =
  | { readonly stringValue: string }
  | { readonly intValue: string }
  | { readonly doubleValue: number }
  | { readonly boolValue: boolean }
  | { readonly arrayValue: { readonly values: readonly OtlpAnyValue[] } };

/** `common.v1.KeyValue`. */
export interface OtlpKeyValue {
  readonly key: string;
  readonly value: OtlpAnyValue;
}

/** `trace.v1.Span` (the fields we write). */
export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: SpanKindValue;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: readonly OtlpKeyValue[];
  readonly status: { readonly code: StatusCodeValue; readonly message?: string };
  /** W3C trace flags (sampled) and "whether the parent is remote is known" (never remote): as the SDKs write it. */
  readonly flags: number;
}

/** The span flags we write: sampled, and the parent's locality known (it is local). */
export const SPAN_FLAGS = 0x101;

/** `collector.trace.v1.ExportTraceServiceRequest`: one line of `convert --to otlp`, one session. */
export interface OtlpTraceRequest {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly OtlpKeyValue[] };
    readonly scopeSpans: readonly {
      readonly scope: { readonly name: string; readonly version: string };
      readonly spans: readonly OtlpSpan[];
      readonly schemaUrl?: string;
    }[];
  }[];
}
