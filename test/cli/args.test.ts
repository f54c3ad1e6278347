import { describe, expect, expectTypeOf, it } from "vitest";
import { AgentStreamError } from "../../src/errors.ts";
import { defineCommand, fitHelp, formatHelp, parseCommandLine } from "../../src/cli/args.ts";
import { readingOptions } from "../../src/cli/reading-options.ts";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";

const options = {
  to: { type: "string", default: "agentstream", valueHint: "<format>", description: "output format" },
  mode: { type: "string", valueHint: "<mode>", choices: ["full", "basic", "none"], description: "how to draw" },
  sse: { type: "boolean", default: false, description: "Server-Sent Events framing" },
  dry: { type: "boolean", short: "n", default: false, description: "change nothing" },
  width: { type: "string", valueHint: "<n>", description: "columns" },
} as const;

function usageMessage(args: readonly string[]): string {
  try {
    parseCommandLine(options, args);
  } catch (error) {
    if (AgentStreamError.is(error) && error.code === "usage") return error.message;
    throw error;
  }
  throw new Error("parsed without a usage error");
}

describe("parseCommandLine", () => {
  it("types each value from its declaration: defaults present, choices narrowed, the rest optional", () => {
    const { values, positionals } = parseCommandLine(options, ["--mode", "basic", "-n", "a.jsonl", "-"]);
    expect(values).toEqual({ to: "agentstream", mode: "basic", sse: false, dry: true });
    expect(positionals).toEqual(["a.jsonl", "-"]);
    expectTypeOf(values.to).toEqualTypeOf<string>();
    expectTypeOf(values.mode).toEqualTypeOf<"full" | "basic" | "none" | undefined>();
    expectTypeOf(values.sse).toEqualTypeOf<boolean>();
    expectTypeOf(values.width).toEqualTypeOf<string | undefined>();
    // @ts-expect-error a misspelt option does not compile
    void values.qiet;
  });

  it("types the shared reading options too", () => {
    const { values } = parseCommandLine(readingOptions, ["--duplicate-keys", "reject"]);
    expectTypeOf(values["duplicate-keys"]).toEqualTypeOf<"keep-last" | "reject">();
    expectTypeOf(values["max-depth"]).toEqualTypeOf<string | undefined>();
    expect(values["duplicate-keys"]).toBe("reject");
    expect(values.from).toBe("auto");
  });

  it.each([
    [["--foo"], "unknown option --foo"],
    [["-x"], "unknown option -x"],
    [["--to"], "--to needs a value"],
    [["--sse=yes"], "--sse takes no value"],
    [["--mode", "rainbow"], '--mode takes full, basic or none, not "rainbow"'],
  ])("%j is a one-line usage error: %s", (args, message) => {
    expect(usageMessage(args)).toBe(message);
  });
});

describe("generated help", () => {
  const command = {
    name: "demo",
    summary: "a demo",
    usage: "demo [options] [file ...]",
    description: "Shows how help is laid out.",
    options: { ...options, ...readingOptions },
    notes: "  (a note under the table)",
    examples: ["agentstream demo a.jsonl"],
    run: async () => 0,
  } as const;

  it("lists usage, description, own options, input options, notes and examples in that order", () => {
    const help = formatHelp(command);
    const order = [
      "Usage: agentstream demo [options] [file ...]",
      "Shows how help",
      "Options:",
      "  --to <format>            output format",
      "  -n, --dry                change nothing",
      "Input options:",
      "  --from <dialect>",
      "  (a note under the table)",
      "Example:",
      "  agentstream demo a.jsonl",
    ];
    const at = order.map((piece) => help.indexOf(piece));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(help).not.toMatch(/Examples:/);
  });

  it("wraps a description under its own column at the terminal's width", () => {
    const io = fakeIo();
    const narrow = { ...io, stdout: { ...io.stdout, columns: 60 } };
    const lines = fitHelp(formatHelp(command), narrow).split("\n");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(60);
    const redact = lines.findIndex((l) => l.startsWith("  --no-redact"));
    expect(lines[redact + 1]).toMatch(/^ {27}\S/);
  });

  it("a defined command parses, runs with typed values, and reports bad input as a usage error", async () => {
    let seen: unknown;
    const demo = defineCommand({
      ...command,
      run: async ({ values }) => {
        seen = values.mode;
        return 0;
      },
    });
    expect(await demo.execute(["--mode", "none"], fakeIo())).toBe(0);
    expect(seen).toBe("none");
    await expect(demo.execute(["--mode", "x"], fakeIo())).rejects.toThrow(/--mode takes full, basic or none/);
  });

  it.each(["render", "convert", "summary", "validate"])("%s --help lists every option it accepts", async (name) => {
    const io = fakeIo();
    expect(await run([name, "--help"], io)).toBe(0);
    for (const flag of ["--from", "--framing", "--strict", "--no-redact", "--quiet", "--verbose"]) expect(io.out()).toContain(flag);
    expect(io.out()).toMatch(/^Input options:$/m);
  });

  it("an unknown option names the command and where to look, exit 2", async () => {
    const io = fakeIo();
    expect(await run(["render", "--foo"], io)).toBe(2);
    expect(io.err()).toBe("agentstream render: unknown option --foo (see agentstream render --help)\n");
    const io2 = fakeIo();
    expect(await run(["convert", "--coalesce", "words"], io2)).toBe(2);
    expect(io2.err()).toBe('agentstream convert: --coalesce takes none or sentence, not "words" (see agentstream convert --help)\n');
    const io3 = fakeIo({ stdin: "{}\n" });
    expect(await run(["convert", "--framing", "lines"], io3)).toBe(2);
    expect(io3.err()).toBe(
      'agentstream convert: unknown framing "lines": use auto, ndjson, json-seq, pretty or document (see agentstream convert --help)\n',
    );
  });
});
