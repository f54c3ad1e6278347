// Schema and sequence rules for `--format aaep`. (Stub: not written yet.)
import type { FormatSpec } from "../formats.ts";

/** `aaep`: its JSON Schema 2020-12 and sequence rules. */
export const aaepFormat: FormatSpec | undefined = undefined;
