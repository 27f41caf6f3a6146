import { createRequire } from 'node:module';

/**
 * The weak-password list: the ~49,000 most common passwords of zxcvbn-ts's common dictionary
 * (MIT), compared case-insensitively, also with common leetspeak undone and a trailing run of
 * digits and symbols removed, so `P@ssw0rd!` and `Dragon2024#` are refused as well as `password`.
 */
let common: ReadonlySet<string> | undefined;

function list(): ReadonlySet<string> {
  if (!common) {
    const require = createRequire(import.meta.url);
    const mod = require('@zxcvbn-ts/language-common') as { dictionary: Record<string, string[]> };
    common = new Set((mod.dictionary['passwords-common'] ?? []).map((p) => p.toLowerCase()));
  }
  return common;
}

const LEET: Record<string, string> = {
  '@': 'a',
  '4': 'a',
  '3': 'e',
  '1': 'i',
  '!': 'i',
  '0': 'o',
  $: 's',
  '5': 's',
  '7': 't',
};

function unleet(text: string): string {
  return text.replace(/[@43!1057$]/g, (c) => LEET[c] ?? c);
}

export function isCommonPassword(password: string): boolean {
  const words = list();
  const lower = password.toLowerCase();
  const stripped = lower.replace(/[^\p{L}]+$/u, '');
  const candidates = [lower, stripped, unleet(lower), unleet(stripped), unleet(lower).replace(/[^\p{L}]+$/u, '')];
  return candidates.some((c) => c.length >= 4 && words.has(c));
}
