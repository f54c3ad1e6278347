import { GROUP_DIMENSIONS, type GroupDimension } from "../../usage/aggregate.ts";
import { costNote, usageTable } from "../../usage/render.ts";
import { usageJson, usageReport } from "../../usage/reports.ts";
import { AgentStreamError } from "../../errors.ts";
import { defineCommand } from "../args.ts";
import { readUsage, tableWidth, USAGE_LOCATIONS_NOTE, usageOptions } from "../usage-options.ts";

export const usage = defineCommand({
  name: "usage",
  summary: "tokens and cost of every session on the machine, by day, week, month, session, model, project or agent",
  usage: "usage [--by <group>]... [options] [path ...]",
  description: `Adds up the tokens (input, output, cache read, cache write, reasoning) and the cost of the
agent session logs under the paths (files or folders), or in the standard locations of the agents
listed below. Each request is counted once, by each agent's own rule, however many files or
lines repeat it (docs/usage.md). Cost is what the agent reported, else estimated from the price
table shipped with agentstream (marked ~); models without a price are listed, never counted as zero.
Days, weeks (from Monday) and months are those of each request's own time.`,
  options: {
    by: {
      type: "string",
      multiple: true,
      valueHint: "<group>",
      description: `${GROUP_DIMENSIONS.join(" | ")} (default: day); repeat or list with commas to group by several`,
    },
    breakdown: { type: "boolean", default: false, description: "each group's models below it" },
    ...usageOptions,
  },
  notes: USAGE_LOCATIONS_NOTE,
  examples: [
    "agentstream usage",
    "agentstream usage --by month --by model --since 2026-01-01",
    "agentstream usage --by project --agent codex --json",
    "agentstream usage ~/.claude/projects/my-project --by session --breakdown",
  ],
  async run({ values, positionals, io }) {
    const by = parseGroups(values.by);
    const { collected, filter, pricer, exit } = await readUsage(values, positionals, io);
    const report = usageReport(collected, filter, pricer, { by, breakdown: values.breakdown });
    if (values.json) {
      const json = usageJson(report, collected, filter, pricer);
      await io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return exit;
    }
    if (report.groups.length === 0) {
      await io.stderr.write(`agentstream usage: no usage found in ${collected.files} file(s)\n`);
      return exit;
    }
    await io.stdout.write(usageTable(report, tableWidth(io)) + costNote(report.totals, pricer.date));
    return exit;
  },
});

function parseGroups(given: readonly string[] | undefined): GroupDimension[] {
  const names = (given ?? ["day"]).flatMap((g) => g.split(",")).map((g) => g.trim());
  const out: GroupDimension[] = [];
  for (const name of names) {
    if (!(GROUP_DIMENSIONS as readonly string[]).includes(name)) {
      throw new AgentStreamError("usage", `--by takes ${GROUP_DIMENSIONS.join(", ")}, not "${name}"`);
    }
    if (!out.includes(name as GroupDimension)) out.push(name as GroupDimension);
  }
  return out;
}
