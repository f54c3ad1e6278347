/** AG-UI protocol events (@ag-ui/core 1.0; docs/formats/ag-ui.md). */
import type { JsonValue } from "../../model/events.ts";

/** One AG-UI event as we write it (a JSON object with a `type`). */
export type AgUiEvent = { type: string } & { [key: string]: JsonValue | undefined };
