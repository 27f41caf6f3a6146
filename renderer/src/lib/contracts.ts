/**
 * The engine API's contracts (engine/api/contracts): one per operation, with the zod schemas of its
 * input and answer. They are the only engine code the console imports (scripts/check-imports.mjs);
 * the console calls them with `call` ($lib/app.ts) and takes its types and form schemas from them.
 */
export * from '../../../engine/api/contracts/index.ts';
