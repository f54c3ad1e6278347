/** Exit codes: the CLI's contract (docs/cli.md). */
export const EXIT = { ok: 0, issues: 1, usage: 2, io: 3, unreadable: 4 } as const;
