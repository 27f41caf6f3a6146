/**
 * The console API's contracts: one per operation (method, path, operationId, access, licensed
 * module, zod schemas of params / query / body / response). The engine binds handlers to them, the
 * OpenAPI document is generated from them, and the console calls them. They import only zod and
 * engine/shared (plain vocabulary, the site shape, the error body), never an engine module, Fastify
 * or Node: the console bundles them as they are.
 */
import type { Contract } from './contract.ts';
import * as system from './system.contract.ts';
import * as session from './session.contract.ts';
import * as accounts from './accounts.contract.ts';
import * as licence from './licence.contract.ts';
import * as sites from './sites.contract.ts';
import * as basicRules from './basic-rules.contract.ts';
import * as logs from './logs.contract.ts';
import * as logConfigs from './log-configs.contract.ts';
import * as events from './events.contract.ts';
import * as ipLists from './ip-lists.contract.ts';
import * as overview from './overview.contract.ts';
import * as backup from './backup.contract.ts';
import * as consoleTls from './console-tls.contract.ts';
import * as twoFactor from './two-factor.contract.ts';
import * as adminSettings from './admin-settings.contract.ts';

export { defineContract } from './contract.ts';
export type { Access, Contract, HttpMethod, InputOf, ParamsOf, QueryOf, BodyOf, ResponseOf } from './contract.ts';
export * from './common.schema.ts';
export * from './system.contract.ts';
export * from './session.contract.ts';
export * from './accounts.contract.ts';
export * from './licence.contract.ts';
export * from './sites.contract.ts';
export * from './basic-rules.contract.ts';
export * from './logs.contract.ts';
export * from './log-configs.contract.ts';
export * from './events.contract.ts';
export * from './ip-lists.contract.ts';
export * from './overview.contract.ts';
export * from './backup.contract.ts';
export * from './console-tls.contract.ts';
export * from './two-factor.contract.ts';
export * from './admin-settings.contract.ts';
export type { ErrorBody } from '#engine/shared';
export { requestFor, API_BASE } from './request.ts';
export type { CallInput, ContractRequest } from './request.ts';

const isContract = (value: unknown): value is Contract =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Contract).operationId === 'string' &&
  typeof (value as Contract).method === 'string';

/** Every contract, by domain. */
export const CONTRACTS: Readonly<Record<string, readonly Contract[]>> = Object.fromEntries(
  Object.entries({
    system,
    session,
    accounts,
    licence,
    sites,
    'basic-rules': basicRules,
    logs,
    'log-configs': logConfigs,
    events,
    'ip-lists': ipLists,
    overview,
    backup,
    'console-tls': consoleTls,
    'two-factor': twoFactor,
    'admin-settings': adminSettings,
  }).map(([domain, exports]) => [domain, Object.values(exports).filter(isContract)]),
);

export const ALL_CONTRACTS: readonly Contract[] = Object.values(CONTRACTS).flat();
