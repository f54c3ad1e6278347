export * from "./events.ts";
export { emptyUsage, addUsage, usageFrom, isUsageEmpty } from "./usage.ts";
