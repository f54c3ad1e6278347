// The types of generate-event-validator.mjs, for test/validation/event-validator.test.ts.
export declare const generatedPath: string;
export declare function eventValidatorSource(schema: object): string;
