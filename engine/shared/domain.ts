/** Vocabulary several modules share. */
export const ROLES = ['administrator', 'user', 'guest'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Licensed modules. `basic` is basic application security; `advanced` is the risk-control security
 * module in edition A and the advanced security module in edition B.
 */
export const MODULES = ['basic', 'advanced'] as const;
export type ModuleKey = (typeof MODULES)[number];

export const EDITIONS = ['A', 'B'] as const;
export type Edition = (typeof EDITIONS)[number];
