// Schema and sequence rules for `--format witness`. (Stub: not written yet.)
import type { FormatSpec } from "../formats.ts";

/** `witness`: its JSON Schema 2020-12 and sequence rules. */
export const witnessFormat: FormatSpec | undefined = undefined;
