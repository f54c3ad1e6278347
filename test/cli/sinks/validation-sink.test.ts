// validate's sink: a validator per input, the format's schema compiled once for all of them.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { run } from "../../../src/cli/run.ts";
import { aaepSpec } from "../../../src/formats/aaep/spec.ts";
import { compileSchema } from "../../../src/validation/ajv.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { tempDir } from "../../helpers/temp.ts";

vi.mock("../../../src/validation/ajv.ts", async (original) => {
  const ajv = await original<typeof import("../../../src/validation/ajv.ts")>();
  return { ...ajv, compileSchema: vi.fn(ajv.compileSchema) };
});

describe("validate --no-sequence over many inputs", () => {
  it("compiles the format's schema once, not once per input, and checks every input", async () => {
    const dir = tempDir("validation-sink");
    const files = Array.from({ length: 5 }, (_, i) => {
      const file = join(dir, `${i}.json`);
      writeFileSync(file, `${JSON.stringify({ type: "aaep:agent.session.started", n: i })}\n`);
      return file;
    });
    const io = fakeIo();
    expect(await run(["validate", "--json", "--format", "aaep", "--no-sequence", ...files], io)).toBe(1);
    const report = JSON.parse(io.out()) as { checked: number; issues: { file: string }[] };
    expect(report.checked).toBe(5);
    expect(new Set(report.issues.map((i) => i.file)).size).toBe(5);
    expect(vi.mocked(compileSchema).mock.calls.filter(([schema]) => schema === aaepSpec.schema)).toHaveLength(1);
  });
});
