/** The OTEL_* variables read as the SDKs read them, flags over them (docs/otel.md). */
import { describe, expect, it } from "vitest";
import { latestConventionsOnly, otlpExportConfig, resourceAttributesFromEnv } from "../../src/otel/config.ts";

describe("otlpExportConfig", () => {
  it("defaults to http/protobuf on localhost:4318/v1/traces with a 10 s timeout", () => {
    expect(otlpExportConfig({}, {})).toEqual({
      url: "http://localhost:4318/v1/traces",
      protocol: "http/protobuf",
      headers: {},
      timeoutMs: 10_000,
    });
  });

  it("appends /v1/traces to a base endpoint, uses the traces endpoint as it is, and lets the flag win", () => {
    expect(otlpExportConfig({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).url).toBe("http://collector:4318/v1/traces");
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:9999/custom" };
    expect(otlpExportConfig({}, env).url).toBe("http://b:9999/custom");
    expect(otlpExportConfig({ endpoint: "http://127.0.0.1:4318" }, env).url).toBe("http://127.0.0.1:4318/v1/traces");
    expect(otlpExportConfig({ endpoint: "http://127.0.0.1:4318/v1/traces" }, env).url).toBe("http://127.0.0.1:4318/v1/traces");
  });

  it("reads the protocol, headers and timeout, the traces-specific ones over the general ones", () => {
    const config = otlpExportConfig(
      {},
      {
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "api-key=one,x-team=a%20b",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "api-key=two",
        OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
      },
    );
    expect(config).toMatchObject({ protocol: "http/json", headers: { "api-key": "two", "x-team": "a b" }, timeoutMs: 2500 });
    expect(
      otlpExportConfig(
        { protocol: "http/protobuf", headers: "api-key=three", timeout: "100" },
        { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      ),
    ).toMatchObject({
      protocol: "http/protobuf",
      headers: { "api-key": "three" },
      timeoutMs: 100,
    });
  });

  it("refuses gRPC, a bad URL, a bad header list and a bad timeout with a usage error", () => {
    expect(() => otlpExportConfig({}, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/not supported/);
    expect(() => otlpExportConfig({ endpoint: "not a url" }, {})).toThrow(/not a URL/);
    expect(() => otlpExportConfig({ endpoint: "ftp://x" }, {})).toThrow(/only http/);
    expect(() => otlpExportConfig({ headers: "novalue" }, {})).toThrow(/key=value/);
    expect(() => otlpExportConfig({ timeout: "-1" }, {})).toThrow(/positive/);
  });
});

describe("the resource and the conventions' opt-in", () => {
  it("reads OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME over its service.name", () => {
    expect(resourceAttributesFromEnv({ OTEL_RESOURCE_ATTRIBUTES: "service.name=x,team=ml%2Fops", OTEL_SERVICE_NAME: "agents" })).toEqual({
      "service.name": "agents",
      team: "ml/ops",
    });
  });

  it("honours gen_ai_latest_experimental in OTEL_SEMCONV_STABILITY_OPT_IN's list", () => {
    expect(latestConventionsOnly({})).toBe(false);
    expect(latestConventionsOnly({ OTEL_SEMCONV_STABILITY_OPT_IN: "http, gen_ai_latest_experimental" })).toBe(true);
    expect(latestConventionsOnly({ OTEL_SEMCONV_STABILITY_OPT_IN: "http" })).toBe(false);
  });
});
