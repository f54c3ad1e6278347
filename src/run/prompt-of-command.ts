/**
 * The prompt an agent's command line names (`claude -p "fix the tests"`, `codex exec ... "fix the tests"`):
 * the task `run` writes in the dev-agent stream (`thread.started.task`) when `--task` does not say it.
 * Read only from the forms each CLI documents for one-shot use; anything else (a prompt on stdin,
 * `-` for stdin, an option order these rules do not cover) is no prompt, and `--task` can say it.
 */
import { dialectOfCommand } from "./dialect-of-command.ts";

/** The options whose value is the prompt, by dialect (the command's name). */
const PROMPT_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  // Claude Code and Cursor's -p is "print"; the prompt is the argument after it in the documented form.
  claude: ["-p", "--print"],
  cursor: ["-p", "--print"],
  gemini: ["-p", "--prompt"],
  qwen: ["-p", "--prompt"],
  aider: ["-m", "--message", "--msg"],
  amp: ["-x", "--execute"],
};

/** Subcommands whose positional arguments are the prompt, and the options of theirs that take a value. */
const PROMPT_SUBCOMMANDS: Readonly<Record<string, { names: readonly string[]; valued: ReadonlySet<string> }>> = {
  codex: {
    names: ["exec", "e"],
    valued: new Set(
      "-c --config -m --model -s --sandbox -C --cd -p --profile -i --image --color -o --output-last-message --output-schema --add-dir --enable --disable --local-provider".split(
        " ",
      ),
    ),
  },
  opencode: {
    names: ["run"],
    valued: new Set("-m --model --agent -s --session -f --file --format --title --attach --port --variant".split(" ")),
  },
};

/** The prompt `args` give `command`, or undefined when they name none this reading can see. */
export function promptOfCommand(command: string, args: readonly string[]): string | undefined {
  const dialect = dialectOfCommand(command);
  const options = PROMPT_OPTIONS[dialect];
  if (options !== undefined) return optionValue(args, options);
  const sub = PROMPT_SUBCOMMANDS[dialect];
  return sub === undefined ? undefined : positionalPrompt(args, sub.names, sub.valued);
}

function optionValue(args: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const inline = names.find((name) => name.startsWith("--") && arg.startsWith(`${name}=`));
    if (inline !== undefined) return nonEmpty(arg.slice(inline.length + 1));
    if (!names.includes(arg)) continue;
    const next = args[i + 1];
    return next === undefined || next.startsWith("-") ? undefined : nonEmpty(next);
  }
  return undefined;
}

/** The positional arguments after the subcommand, joined (OpenCode takes several words); `-` is stdin. */
function positionalPrompt(args: readonly string[], subcommands: readonly string[], valued: ReadonlySet<string>): string | undefined {
  const at = args.findIndex((arg) => !arg.startsWith("-"));
  if (at === -1 || !subcommands.includes(args[at] as string)) return undefined;
  const words: string[] = [];
  for (let i = at + 1; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      words.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("-") && arg !== "-") {
      if (valued.has(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  if (words.length === 0 || words.includes("-")) return undefined;
  return nonEmpty(words.join(" "));
}

function nonEmpty(text: string): string | undefined {
  return text.trim() === "" ? undefined : text;
}
