/**
 * Request bodies through the official @opentelemetry/otlp-transformer (OTLP/HTTP protobuf or JSON), from our
 * finished spans. The transformer takes the SDK's span objects; ours are shaped to the fields it reads.
 */
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { FinishedSpan, SpanAttributes } from "../formats/otlp/wire.ts";
import { OTLP_SCOPE } from "../formats/otlp/encode.ts";
import type { OtlpProtocol } from "./config.ts";

type SdkSpans = Parameters<typeof ProtobufTraceSerializer.serializeRequest>[0];

/** A serializer's verdict on a response body: what the receiver rejected (OTLP partial success). */
export interface PartialSuccess {
  readonly rejectedSpans: number;
  readonly errorMessage: string;
}

/** The body of one export request holding `spans`. */
export function serializeSpans(spans: readonly FinishedSpan[], resource: SpanAttributes, protocol: OtlpProtocol): Uint8Array {
  const sdkResource = { attributes: resource };
  const sdkSpans = spans.map((span) => sdkSpan(span, sdkResource));
  const serializer = protocol === "http/json" ? JsonTraceSerializer : ProtobufTraceSerializer;
  // The transformer reads only the fields sdkSpan fills: the cast is from our shape to the SDK's declared one.
  return serializer.serializeRequest(sdkSpans as unknown as SdkSpans) ?? new Uint8Array();
}

/** What a 2xx response says about rejected spans; undefined when it rejected none (or said nothing readable). */
export function partialSuccessOf(body: Uint8Array, protocol: OtlpProtocol): PartialSuccess | undefined {
  if (body.length === 0) return undefined;
  try {
    const serializer = protocol === "http/json" ? JsonTraceSerializer : ProtobufTraceSerializer;
    const partial = serializer.deserializeResponse(body).partialSuccess;
    if (partial === undefined) return undefined;
    const rejectedSpans = Number(partial.rejectedSpans ?? 0);
    const errorMessage = partial.errorMessage ?? "";
    return rejectedSpans > 0 || errorMessage !== "" ? { rejectedSpans, errorMessage } : undefined;
  } catch {
    return undefined;
  }
}

function hrTime(ms: number): [number, number] {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** The SDK's span kinds are the protocol's less one (the API has no "unspecified"). */
function sdkSpan(span: FinishedSpan, resource: { attributes: SpanAttributes }): object {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: 1 };
  return {
    name: span.name,
    kind: span.kind - 1,
    spanContext: () => context,
    parentSpanContext:
      span.parentSpanId === undefined ? undefined : { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: 1, isRemote: false },
    startTime: hrTime(span.startMs),
    endTime: hrTime(span.endMs),
    status: span.status,
    attributes: span.attributes,
    links: [],
    events: [],
    duration: hrTime(span.endMs - span.startMs),
    ended: true,
    resource,
    instrumentationScope: OTLP_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
