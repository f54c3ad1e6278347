/** One export request against a receiver on 127.0.0.1: retries, final statuses, partial success, timeouts. */
import { afterEach, describe, expect, it } from "vitest";
import { otlpExportConfig } from "../../src/otel/config.ts";
import { sendTraces, type RetryPolicy } from "../../src/otel/send.ts";
import { serializeSpans } from "../../src/otel/serialize.ts";
import type { FinishedSpan } from "../../src/formats/otlp/wire.ts";
import { freePort } from "../helpers/nats-server.ts";
import { partialSuccessBody, startReceiver, type Receiver } from "../helpers/otlp.ts";

const FAST: RetryPolicy = { attempts: 4, initialBackoffMs: 10, maxBackoffMs: 40 };
const span: FinishedSpan = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  name: "invoke_agent claude-code",
  kind: 1,
  startMs: 1_767_225_600_000,
  endMs: 1_767_225_601_500.5,
  attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 12 },
  status: { code: 0 },
};
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const body = (protocol: "http/protobuf" | "http/json"): Uint8Array => serializeSpans([span], { "service.name": "t" }, protocol);

describe("sendTraces", () => {
  it.each(["http/protobuf", "http/json"] as const)("sends %s that the official definitions decode, with the headers", async (protocol) => {
    receiver = await startReceiver();
    const config = otlpExportConfig({ endpoint: receiver.origin, protocol, headers: "api-key=k1" }, {});
    expect(await sendTraces(config, body(protocol), FAST)).toEqual({ ok: true, attempts: 1 });
    const [got] = receiver.received;
    expect(got?.path).toBe("/v1/traces");
    expect(got?.headers["api-key"]).toBe("k1");
    expect(got?.contentType).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
    const [request] = receiver.requests();
    expect(request?.spans[0]).toMatchObject({
      spanId: span.spanId,
      traceId: span.traceId,
      name: span.name,
      end: 1_767_225_601_500_500_000n,
    });
    expect(request?.spans[0]?.attributes["gen_ai.usage.input_tokens"]).toBe(12);
    expect(request?.resource["service.name"]).toBe("t");
  });

  it.each([429, 502, 503, 504])("retries %i with backoff, then succeeds", async (status) => {
    receiver = await startReceiver((n) => (n < 2 ? { status } : { status: 200 }));
    const config = otlpExportConfig({ endpoint: receiver.origin }, {});
    expect(await sendTraces(config, body("http/protobuf"), FAST)).toEqual({ ok: true, attempts: 3 });
    expect(receiver.received).toHaveLength(1);
  });

  it.each([400, 401, 404, 413, 500])("does not retry %i: it is final", async (status) => {
    let asked = 0;
    receiver = await startReceiver(() => {
      asked++;
      return { status, body: "bad request body" };
    });
    const result = await sendTraces(otlpExportConfig({ endpoint: receiver.origin }, {}), body("http/protobuf"), FAST);
    expect(result).toMatchObject({ ok: false, attempts: 1 });
    expect(!result.ok && result.reason).toMatch(new RegExp(`HTTP ${status}`));
    expect(asked).toBe(1);
  });

  it("gives up after its attempts while the endpoint keeps failing", async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    const result = await sendTraces(otlpExportConfig({ endpoint: receiver.origin }, {}), body("http/protobuf"), FAST);
    expect(result).toMatchObject({ ok: false, attempts: 4, reason: "HTTP 503" });
  });

  it("retries a refused connection (the endpoint down), bounded", async () => {
    const port = await freePort();
    const result = await sendTraces(otlpExportConfig({ endpoint: `http://127.0.0.1:${port}` }, {}), body("http/protobuf"), FAST);
    expect(result).toMatchObject({ ok: false, attempts: 4 });
    expect(!result.ok && result.reason).toMatch(/ECONNREFUSED/);
  });

  it("reports a partial success (protobuf and JSON answers), without retrying", async () => {
    receiver = await startReceiver(() => ({ status: 200, body: partialSuccessBody(1, "span too large") }));
    const result = await sendTraces(otlpExportConfig({ endpoint: receiver.origin }, {}), body("http/protobuf"), FAST);
    expect(result).toEqual({ ok: true, attempts: 1, partial: { rejectedSpans: 1, errorMessage: "span too large" } });
    await receiver.close();
    receiver = await startReceiver(() => ({
      status: 200,
      body: JSON.stringify({ partialSuccess: { rejectedSpans: 2, errorMessage: "quota" } }),
    }));
    const json = await sendTraces(otlpExportConfig({ endpoint: receiver.origin, protocol: "http/json" }, {}), body("http/json"), FAST);
    expect(json).toEqual({ ok: true, attempts: 1, partial: { rejectedSpans: 2, errorMessage: "quota" } });
  });

  it("times out a slow endpoint per request and retries it", async () => {
    receiver = await startReceiver((n) => (n === 0 ? { status: 200, delayMs: 500 } : { status: 200 }));
    const config = otlpExportConfig({ endpoint: receiver.origin, timeout: "100" }, {});
    expect(await sendTraces(config, body("http/protobuf"), FAST)).toEqual({ ok: true, attempts: 2 });
  });
});
