/** How much colour and structure the output may use: `full` (a terminal), `basic` (colour, one write per block), `none` (no escape sequences). */
export type RenderMode = "full" | "basic" | "none";

/** How much the view shows: `quiet` < `normal` < `verbose` < `full` (nothing cut); `debug` prints each event as JSON instead. */
export type Verbosity = "quiet" | "normal" | "verbose" | "full" | "debug";
