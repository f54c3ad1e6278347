/**
 * Typed command definitions (in the style of citty's `defineCommand`): each option is declared
 * once (type, short flag, default, description, value hint, choices); the parsed values are typed
 * from the declaration, and `--help` is generated from it.
 */
import { parseArgs } from "node:util";
import { AgentStreamError } from "../errors.ts";
import { wrapLine } from "../views/shared/wrap.ts";
import type { CliIo } from "./io.ts";

/** One option of one command, declared once. */
interface OptionSpec {
  readonly type: "string" | "boolean";
  /** One letter: `-q` for `--quiet`. */
  readonly short?: string;
  readonly default?: string | boolean;
  /** What `--help` says about it (wrapped to the terminal; write it as one line). */
  readonly description: string;
  /** The value's name in `--help`: `<format>`. */
  readonly valueHint?: string;
  /** The only values accepted; anything else is a usage error `--x takes a, b or c, not "d"`. */
  readonly choices?: readonly string[];
  /** Options shared by every reading command are listed under "Input options:". */
  readonly group?: "input";
  /** A string option that may be given several times: its value is the list, in order. */
  readonly multiple?: true;
}

/** Every option of one command, by long name, in the order `--help` lists them. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The value one option parses to: `boolean`, one of its `choices`, or `string`. */
type ValueOf<S extends OptionSpec> = S["type"] extends "boolean"
  ? boolean
  : S extends { readonly multiple: true }
    ? string[]
    : S extends { readonly choices: readonly (infer C)[] }
      ? C
      : string;

/** The parsed values of a set of options: always present when the option has a default. */
export type ParsedValues<O extends OptionSpecs> = {
  readonly [K in keyof O]: O[K] extends { readonly default: string | boolean } ? ValueOf<O[K]> : ValueOf<O[K]> | undefined;
};

/** What a command's `run` receives. */
interface CommandContext<O extends OptionSpecs> {
  readonly values: ParsedValues<O>;
  /** The positional arguments: files (or `-` for stdin), or a format name. */
  readonly positionals: readonly string[];
  readonly io: CliIo;
}

/** One `agentstream <command>` as written: what `--help` says and what it does. */
export interface CommandDefinition<O extends OptionSpecs> {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** What follows `Usage: agentstream `: `render [options] [file ...]`. */
  readonly usage: string;
  /** Paragraphs after the usage line (blank lines between them). */
  readonly description: string;
  readonly options: O;
  /** Lines printed right after the options table. */
  readonly notes?: string;
  /** Paragraphs after the options, before the examples (durations, exit status). */
  readonly epilog?: string;
  readonly examples?: readonly string[];
  run(context: CommandContext<O>): Promise<number>;
}

/** A command as the dispatcher sees it: its generated help, and `execute`, which parses and runs. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  /** The full `--help` text, unwrapped (fitHelp wraps it to the terminal). */
  readonly help: string;
  /** Parses `args` (a usage error throws AgentStreamError "usage") and runs; returns the exit code. */
  execute(args: readonly string[], io: CliIo): Promise<number>;
}

/** Declares a command; the values its `run` receives are typed from `options`. */
export function defineCommand<const O extends OptionSpecs>(definition: CommandDefinition<O>): Command {
  return {
    name: definition.name,
    summary: definition.summary,
    help: formatHelp(definition),
    async execute(args, io) {
      const { values, positionals } = parseCommandLine(definition.options, args);
      return definition.run({ values, positionals, io });
    },
  };
}

/** Parses `args` against `options`; an unknown option, a missing value or a value not among the choices throws a usage error. */
export function parseCommandLine<O extends OptionSpecs>(
  options: O,
  args: readonly string[],
): { values: ParsedValues<O>; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options: toParseArgsOptions(options), allowPositionals: true, strict: true });
  } catch (error) {
    throw new AgentStreamError("usage", parseArgsReason(error), { cause: error });
  }
  for (const [name, spec] of Object.entries(options)) {
    const given = parsed.values[name];
    for (const value of Array.isArray(given) ? given : [given]) {
      if (spec.choices !== undefined && typeof value === "string" && !spec.choices.includes(value)) {
        throw new AgentStreamError("usage", `--${name} takes ${listChoices(spec.choices)}, not "${value}"`);
      }
    }
  }
  // Checked above against the declaration parseArgs was given: each value has its declared type.
  return { values: parsed.values as ParsedValues<O>, positionals: parsed.positionals };
}

type ParseArgsOptions = NonNullable<Parameters<typeof parseArgs>[0]>["options"];

function toParseArgsOptions(options: OptionSpecs): ParseArgsOptions {
  const out: NonNullable<ParseArgsOptions> = {};
  for (const [name, spec] of Object.entries(options)) {
    out[name] =
      spec.type === "boolean"
        ? {
            type: "boolean",
            ...(spec.short === undefined ? {} : { short: spec.short }),
            ...(typeof spec.default === "boolean" ? { default: spec.default } : {}),
          }
        : {
            type: "string",
            ...(spec.multiple === true ? { multiple: true } : {}),
            ...(spec.short === undefined ? {} : { short: spec.short }),
            ...(typeof spec.default === "string" ? { default: spec.default } : {}),
          };
  }
  return out;
}

/** `a, b or c` */
function listChoices(choices: readonly string[]): string {
  return choices.length < 2 ? choices.join("") : `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;
}

/** node:util parseArgs errors carry a code; say the same thing in our words, on one line. */
function parseArgsReason(error: unknown): string {
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  const firstLine = (message.split("\n")[0] ?? message).replace(/\.$/, "");
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/argument missing/.test(message)) return `${option ?? "an option"} needs a value`;
      if (/does not take an argument/.test(message)) return `${option ?? "an option"} takes no value`;
      return firstLine;
    default:
      return firstLine;
  }
}

/** Where an option's description starts: the widest flag column in use (`  --duplicate-keys <mode>  `). */
const DESCRIPTION_COLUMN = 25;

/** The `--help` text of a command: usage, description, options table (own, then input options), notes, epilog, examples. */
export function formatHelp(definition: CommandDefinition<OptionSpecs>): string {
  const specs = Object.entries(definition.options);
  const own = specs.filter(([, spec]) => spec.group === undefined);
  const input = specs.filter(([, spec]) => spec.group === "input");
  const parts = [`Usage: agentstream ${definition.usage}`, definition.description];
  const tables: string[] = [];
  if (own.length > 0) tables.push("Options:", ...own.map(optionRow));
  if (input.length > 0) tables.push("Input options:", ...input.map(optionRow));
  if (definition.notes !== undefined) tables.push(definition.notes);
  if (tables.length > 0) parts.push(tables.join("\n"));
  if (definition.epilog !== undefined) parts.push(definition.epilog);
  const examples = definition.examples ?? [];
  if (examples.length > 0) parts.push([examples.length === 1 ? "Example:" : "Examples:", ...examples.map((e) => `  ${e}`)].join("\n"));
  return parts.join("\n\n");
}

/** `  -q, --quiet              print no diagnostics` */
function optionRow([name, spec]: readonly [string, OptionSpec]): string {
  const flag = `${spec.short === undefined ? "" : `-${spec.short}, `}--${name}${spec.valueHint === undefined ? "" : ` ${spec.valueHint}`}`;
  return `  ${flag.padEnd(DESCRIPTION_COLUMN - 2)}  ${spec.description}`;
}

/** The width help is wrapped to: the terminal's, else $COLUMNS, else 80 (never under 40). */
function helpWidth(io: CliIo): number {
  const env = Number(io.env.COLUMNS);
  return Math.max(40, io.stdout.columns ?? (Number.isInteger(env) && env > 0 ? env : 80));
}

/**
 * Help text reflowed to the terminal at word boundaries: the lines of a paragraph are joined and
 * wrapped again, an option's description continues under its own column.
 */
export function fitHelp(text: string, io: CliIo): string {
  const width = helpWidth(io);
  return joinContinuations(text)
    .map(({ text: row, lead, column }) => {
      // An option's description under its column; an indented line (an example command) two further in.
      const hang = column > lead && column < width / 2 ? column : lead > 0 ? lead + 2 : 0;
      return wrapLine(row, width, 0, " ".repeat(Math.max(hang - lead, 0)));
    })
    .join("\n");
}

interface LogicalLine {
  text: string;
  /** Leading spaces. */
  readonly lead: number;
  /** Where an option row's description starts; else `lead`. */
  readonly column: number;
}

/** Joins the rows of a paragraph (or of an option's description written over several rows) into one logical line. */
function joinContinuations(text: string): LogicalLine[] {
  const logical: LogicalLine[] = [];
  for (const row of text.split("\n")) {
    const lead = /^\s*/.exec(row)?.[0].length ?? 0;
    const previous = logical.at(-1);
    if (previous !== undefined && continues(previous, row, lead)) {
      previous.text += ` ${row.trim()}`;
      continue;
    }
    const option = /^(\s+\S.*?\s{2,})\S/.exec(row)?.[1];
    logical.push({ text: row, lead, column: option !== undefined ? option.length : lead });
  }
  return logical;
}

/** A paragraph at the left edge goes on in the next row; so does an option's description, in its column. */
function continues(previous: LogicalLine, row: string, lead: number): boolean {
  if (row.trim() === "" || previous.text.trim() === "" || /^\s*-/.test(row)) return false;
  if (lead === 0) return previous.lead === 0 && !previous.text.endsWith(":");
  return previous.column > previous.lead && lead === previous.column;
}
