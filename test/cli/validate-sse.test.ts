// validate --format reads SSE framing as well as NDJSON; nothing checked is never a pass; --json.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";

const agUiDir = sharedPath("fixtures/protocols/ag-ui");
const agUiCaptures = hasShared ? readdirSync(agUiDir).filter((name) => name.endsWith(".json")) : [];

/** The records of a real AG-UI capture (a pretty JSON array, BOM and all). */
function agUiRecords(name: string): Record<string, unknown>[] {
  return JSON.parse(readFileSync(join(agUiDir, name), "utf8").replace(/^\uFEFF/, "")) as Record<string, unknown>[];
}

/** Serves records as a server would: ids, event names, keep-alive comments, data split over lines, CRLF. */
function asSse(records: readonly unknown[]): string {
  const blocks = records.map((record, i) => {
    const data = JSON.stringify(record, null, 1)
      .split("\n")
      .map((line) => `data: ${line}`);
    return [`id: ${i + 1}`, "event: message", ...data].join("\r\n");
  });
  return `: connected\r\n\r\n${blocks.join("\r\n\r\n:keep-alive\r\n\r\n")}\r\n\r\n`;
}

async function validate(args: string[], stdin: string) {
  const io = fakeIo({ stdin });
  const code = await run(["validate", ...args], io);
  return { code, err: io.err(), out: io.out() };
}

describe("validate --format ag-ui on real AG-UI streams served as SSE", () => {
  it.skipIf(!hasShared).each(agUiCaptures)("%s", async (name) => {
    const records = agUiRecords(name);
    const result = await validate(["--format", "ag-ui"], asSse(records));
    expect(result.err).toBe(`valid: ${records.length} records checked, 0 issues\n`);
    expect(result.code).toBe(0);
  });

  it.skipIf(!hasShared)("an invalid record is reported at its SSE data line (exit 1)", async () => {
    const records = agUiRecords(agUiCaptures[0] as string);
    const broken = records.map((r, i) => (i === 1 ? { ...r, type: "TOOL_CALL_BEGUN" } : r));
    const sse = asSse(broken);
    const line = sse.split("\r\n").findIndex((l) => l.includes("TOOL_CALL_BEGUN")) + 1;
    const blockStart = sse.split("\r\n").slice(0, line).lastIndexOf("event: message") + 2; // its first data: line
    const result = await validate(["--format", "ag-ui"], sse);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(new RegExp(`^<stdin>:${blockStart}: schema-mismatch: type must be one of`, "m"));
  });
});

describe("validate --format ai-sdk reads our own SSE output, [DONE] included", () => {
  it.skipIf(!hasShared)("convert --to ai-sdk --sse | validate --format ai-sdk", async () => {
    const capture = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
    const convert = fakeIo();
    expect(await run(["convert", "--to", "ai-sdk", "--sse", capture], convert)).toBe(0);
    expect(convert.out()).toMatch(/^: x-vercel-ai-ui-message-stream: v1\n/);
    expect(convert.out()).toMatch(/data: \[DONE\]\n\n$/);
    const ndjson = fakeIo();
    await run(["convert", "--to", "ai-sdk", capture], ndjson);
    const count = ndjson.out().trim().split("\n").length;
    const result = await validate(["--format", "ai-sdk"], convert.out());
    expect(result.err).toBe(`valid: ${count} records checked, 0 issues\n`);
    expect(result.code).toBe(0);
  });
});

describe("nothing checked is never a pass", () => {
  it.each([
    ["text only", "hello\nworld\n", 2], // each line that is not JSON is an issue of its own
    ["SSE without data", ": just a comment\n\nevent: ping\n\n", 0],
  ])("%s: exit 1 with a clear line", async (_name, stdin, issues) => {
    const result = await validate(["--format", "ag-ui"], stdin);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      new RegExp(
        `^invalid: 0 records checked, ${issues} issues: nothing to validate \\(no ag-ui record as NDJSON or SSE data: lines\\)$`,
        "m",
      ),
    );
  });

  it("empty input: exit 4, said once", async () => {
    const result = await validate(["--format", "ai-sdk"], "");
    expect(result.code).toBe(4);
    expect(result.err).toMatch(/^<stdin>: empty input/);
  });
});

describe("validate --json", () => {
  it("prints the result and the issues as JSON on stdout, nothing on stderr", async () => {
    const sse =
      'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\ndata: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}\n\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n';
    const result = await validate(["--format", "ag-ui", "--json"], sse);
    expect(result.code).toBe(1);
    expect(result.err).toBe("");
    const body = JSON.parse(result.out);
    expect(body).toMatchObject({
      valid: false,
      format: "ag-ui",
      checked: 3,
      kind: "records",
      inputs: [{ name: "<stdin>", framing: "sse", unreadable: null }],
    });
    expect(body.issues).toEqual([expect.objectContaining({ file: "<stdin>", line: 3, code: "out-of-order", severity: "error" })]);
  });

  it("a valid stream gives valid: true and no issues", async () => {
    const result = await validate(
      ["--format", "ag-ui", "--json"],
      '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ valid: true, checked: 2, inputs: [{ framing: "ndjson" }], issues: [] });
  });
});
