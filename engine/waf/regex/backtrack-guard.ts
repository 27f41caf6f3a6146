import { setFlagsFromString } from 'node:v8';

/**
 * V8's regex engine backtracks without limit, where PCRE stops at its match limit. With this flag a
 * regex that backtracks excessively is re-run on V8's linear-time engine (same result, bounded time),
 * so a hostile input cannot stall the event loop on the patterns that engine supports (no
 * backreferences or lookarounds). Set once, before any rule regex is compiled.
 */
let applied = false;

export function guardRegexBacktracking(): void {
  if (applied) return;
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  applied = true;
}

guardRegexBacktracking();
