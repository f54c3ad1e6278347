/** The command line's arguments that are ours: those before "--" (after it, `agentstream run -- claude --help`, the agent's). */
function ownArguments(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end === -1 ? args : args.slice(0, end);
}

/** Whether our own arguments ask for the command's help. */
export function asksForHelp(args: readonly string[]): boolean {
  const ours = ownArguments(args);
  return ours.includes("--help") || ours.includes("-h");
}
