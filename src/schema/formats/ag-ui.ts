// Schema and sequence rules for `--format ag-ui`. (Stub: not written yet.)
import type { FormatSpec } from "../formats.ts";

/** `ag-ui`: its JSON Schema 2020-12 and sequence rules. */
export const agUiFormat: FormatSpec | undefined = undefined;
