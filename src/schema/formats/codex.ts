// Schema and sequence rules for `--format codex`. (Stub: not written yet.)
import type { FormatSpec } from "../formats.ts";

/** `codex`: its JSON Schema 2020-12 and sequence rules. */
export const codexFormat: FormatSpec | undefined = undefined;
