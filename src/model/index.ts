export * from "./events.ts";
export { emptyUsage, addUsage, usageFrom, isUsageEmpty } from "./usage.ts";
export { LosslessInteger, isJsonObject } from "./lossless-integer.ts";
