// The protocols' own conformance material in ../shared passes the built CLI's `validate` unchanged:
// AAEP's schema examples (each event as one record, as the AAEP suite checks them) and AG-UI's golden
// server streams (whole runs). Read in place; the AAEP examples are written out one per file, as given.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { upstreamAaep, upstreamErrors } from "../helpers/aaep-upstream.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.cjs");
const runnable = hasShared && existsSync(bin);

interface Validation {
  readonly code: number | null;
  readonly stderr: string;
  readonly report: { valid: boolean; checked: number; issues: { file: string; message: string }[] };
}

function validate(args: readonly string[]): Validation {
  const result = spawnSync(process.execPath, [bin, "validate", "--json", ...args], { encoding: "utf8" });
  return { code: result.status, stderr: result.stderr, report: JSON.parse(result.stdout) as Validation["report"] };
}

/** Every example of the AAEP schemas (envelope, core events, handshake messages), one file each, named after its schema. */
function aaepExampleFiles(): { file: string; schema: string; value: Record<string, unknown> }[] {
  const upstream = upstreamAaep();
  if (upstream === undefined) return [];
  const dir = tempDir("aaep-examples", { until: "file" });
  return upstream.examples.map(({ schema, value }, i) => {
    const file = join(dir, `${String(i).padStart(2, "0")}-${schema.replace(/^aaep:/, "")}.json`);
    writeFileSync(file, `${JSON.stringify(value)}\n`);
    return { file, schema, value: value as Record<string, unknown> };
  });
}

describe.skipIf(!runnable)("validate --format aaep over every example of AAEP's schemas (built CLI)", () => {
  const upstream = upstreamAaep();
  const examples = aaepExampleFiles();
  // The AAEP suite checks an event against the envelope and then its core type: the envelope's own examples
  // are partial events (a session.started without summary_normal, a tool.invoked without tool) it rejects too.
  const valid = examples.filter((e) => upstream !== undefined && upstreamErrors(upstream, e.value).length === 0);
  const invalid = examples.filter((e) => !valid.includes(e));

  it("every example the AAEP suite accepts passes, secrets-looking tokens and all (exit 0)", () => {
    // The examples of the 12 core event schemas and of the 5 handshake and reply messages (which have no envelope).
    expect(valid.length).toBe(56);
    expect(valid.map((e) => e.schema)).toContain("confirmation.reply");
    expect(valid.map((e) => e.schema)).toContain("aaep:agent.awaiting.confirmation");
    const result = validate(["--format", "aaep", "--no-sequence", ...valid.map((e) => e.file)]);
    expect(result.report.issues).toEqual([]);
    expect(result.report).toMatchObject({ valid: true, checked: valid.length });
    expect(result.code).toBe(0);
  });

  it.each(invalid.map((e) => [e.file.replace(/.*\//, ""), e] as const))("%s, which the AAEP suite rejects, fails (exit 1)", (_name, e) => {
    const result = validate(["--format", "aaep", "--no-sequence", e.file]);
    expect(result.report.valid).toBe(false);
    expect(result.code).toBe(1);
  });

  it("the confirmation example is checked as written: its reply_token is not redacted first", () => {
    const confirmation = valid.find((e) => e.schema === "aaep:agent.awaiting.confirmation");
    expect(confirmation).toBeDefined();
    const result = validate(["--format", "aaep", "--no-sequence", (confirmation as { file: string }).file]);
    expect(result.stderr).not.toMatch(/redacted/);
    expect(result.code).toBe(0);
  });

  it("as a stream, a lone event breaks the lifecycle rules: --no-sequence is what says it is one event", () => {
    const confirmation = valid.find((e) => e.schema === "aaep:agent.awaiting.confirmation") as { file: string };
    const result = validate(["--format", "aaep", confirmation.file]);
    expect(result.report.issues.map((i) => i.message)).toContain(
      "L1-LIFE-003: the session's first event is aaep:agent.awaiting.confirmation, not agent.session.started",
    );
    expect(result.code).toBe(1);
  });
});

describe.skipIf(!runnable)("validate --format ag-ui over AG-UI's golden server streams (built CLI)", () => {
  const dir = sharedPath("fixtures/protocols/ag-ui");
  const files = hasShared ? readdirSync(dir).filter((name) => name.endsWith(".json")) : [];

  it("every stream passes as it is (a JSON array with a BOM): exit 0", () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    const paths = files.map((name) => join(dir, name));
    const records = paths.reduce((n, path) => n + (JSON.parse(readFileSync(path, "utf8").replace(/^\uFEFF/, "")) as unknown[]).length, 0);
    const result = validate(["--format", "ag-ui", ...paths]);
    expect(result.report.issues).toEqual([]);
    expect(result.report).toMatchObject({ valid: true, checked: records });
    expect(result.code).toBe(0);
  });
});
