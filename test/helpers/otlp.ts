/**
 * OTLP for tests: requests decoded with the official protobuf definitions (opentelemetry-proto, as compiled by
 * protobufjs in the @opentelemetry/otlp-transformer 0.57 release, installed as `otlp-proto-definitions`), and a
 * receiver on 127.0.0.1 that records what it got and answers as told.
 */
import { createRequire } from "node:module";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const require = createRequire(import.meta.url);

interface ProtoType {
  decode(bytes: Uint8Array): object;
  encode(message: object): { finish(): Uint8Array };
  fromObject(value: object): object;
  toObject(message: object, options: object): Record<string, unknown>;
  verify(value: object): string | null;
}

const root = require("otlp-proto-definitions/build/src/generated/root") as {
  opentelemetry: { proto: { collector: { trace: { v1: Record<string, ProtoType> } } } };
};
const service = root.opentelemetry.proto.collector.trace.v1;
const Request = service.ExportTraceServiceRequest as ProtoType;
const Response = service.ExportTraceServiceResponse as ProtoType;

/** A span as the tests read it: hex ids, attributes by name (ints as numbers), times in ns as bigint. */
export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
}

export interface DecodedRequest {
  resource: Record<string, unknown>;
  scope: { name: string; version: string };
  spans: DecodedSpan[];
}

const TO_OBJECT = { longs: String, enums: Number, bytes: Array, defaults: true, arrays: true, objects: true, oneofs: true };

/** An OTLP/HTTP protobuf body, decoded with the official definitions. */
export function decodeProtobuf(bytes: Uint8Array): DecodedRequest {
  return normalize(Request.toObject(Request.decode(bytes), TO_OBJECT));
}

/**
 * An OTLP/JSON body (or a `convert --to otlp` line), read with the official definitions: turned into the message
 * (`fromObject`, which drops unknown fields), checked (`verify`), then read as the protobuf form is. Ids are hex in OTLP/JSON (not protobuf's
 * base64), so they are turned into bytes first, as the specification says receivers do.
 */
export function decodeJson(text: string): DecodedRequest {
  const value = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
  for (const resourceSpans of value.resourceSpans)
    for (const scopeSpans of resourceSpans.scopeSpans)
      for (const span of scopeSpans.spans)
        for (const key of ["traceId", "spanId", "parentSpanId"])
          if (typeof span[key] === "string") span[key] = [...Buffer.from(span[key] as string, "hex")];
  // fromObject reads the JSON mapping (64-bit integers as strings); verify then checks the message it made.
  const message = Request.fromObject(value);
  const problem = Request.verify(message);
  if (problem !== null) throw new Error(`not an ExportTraceServiceRequest: ${problem}`);
  return decodeProtobuf(Request.encode(message).finish());
}

/** An `ExportTraceServiceResponse` with a partial success, encoded with the official definitions. */
export function partialSuccessBody(rejectedSpans: number, errorMessage: string): Uint8Array {
  return Response.encode(Response.fromObject({ partialSuccess: { rejectedSpans, errorMessage } })).finish();
}

type Obj = Record<string, unknown>;

function attributes(list: Obj[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) out[kv.key as string] = anyValueOf(kv.value as Obj);
  return out;
}

/** protobufjs' toObject with `defaults` fills every oneof member; the set one is named by the `value` virtual field. */
function anyValueOf(value: Obj): unknown {
  const set = value.value as string | undefined;
  if (set === undefined) return undefined;
  if (set === "arrayValue") return ((value.arrayValue as Obj).values as Obj[]).map(anyValueOf);
  if (set === "intValue") return Number(value.intValue);
  return value[set];
}

const hex = (bytes: unknown): string => Buffer.from((bytes as number[]) ?? []).toString("hex");

function normalize(message: Obj): DecodedRequest {
  const resourceSpans = message.resourceSpans as Obj[];
  if (resourceSpans.length !== 1) throw new Error(`expected one resource, got ${resourceSpans.length}`);
  const [first] = resourceSpans as [Obj];
  const scopeSpans = first.scopeSpans as Obj[];
  const scope = (scopeSpans[0]?.scope ?? { name: "", version: "" }) as { name: string; version: string };
  const spans = scopeSpans
    .flatMap((s) => s.spans as Obj[])
    .map(
      (span): DecodedSpan => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name as string,
        kind: span.kind as number,
        start: BigInt(span.startTimeUnixNano as string),
        end: BigInt(span.endTimeUnixNano as string),
        attributes: attributes(span.attributes as Obj[]),
        status: { code: (span.status as Obj).code as number, message: (span.status as Obj).message as string },
      }),
    );
  return { resource: attributes((first.resource as Obj).attributes as Obj[]), scope: { name: scope.name, version: scope.version }, spans };
}

/** What a receiver got: one entry per request. */
interface Received {
  readonly contentType: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: Uint8Array;
  /** When it arrived (ms since the epoch). */
  readonly at: number;
}

export interface Receiver {
  readonly origin: string;
  readonly received: Received[];
  /** The decoded requests, whatever their encoding. */
  requests(): DecodedRequest[];
  close(): Promise<void>;
}

/** How the receiver answers request number `n` (from 0): a status and a body, after an optional delay. */
export type Answer = (n: number, request: Received) => { status: number; body?: Uint8Array | string; delayMs?: number };

/** A receiver on 127.0.0.1 (a free port); by default it accepts everything with an empty 200. */
export async function startReceiver(answer: Answer = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  let count = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const request: Received = {
        contentType: req.headers["content-type"] ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(parts),
        at: Date.now(),
      };
      const reply = answer(count++, request);
      if (reply.status >= 200 && reply.status < 300) received.push(request);
      const send = (): void => {
        res.writeHead(reply.status, { "content-type": request.contentType });
        res.end(reply.body ?? "");
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    requests: () =>
      received.map((r) => (r.contentType.includes("json") ? decodeJson(Buffer.from(r.body).toString("utf8")) : decodeProtobuf(r.body))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
