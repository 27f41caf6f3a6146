import { z } from 'zod';
import { defineContract } from './contract.ts';

/** Spec 5.2: administrators and users manage site protection, which the global lists are part of. */
const MANAGERS = ['administrator', 'user'] as const;

const entries = z
  .array(z.string().max(64, 'must be at most 64 characters'))
  .max(10_000, 'at most 10,000 entries')
  .describe('IP addresses and CIDR ranges, IPv4 and IPv6');

export const ipListsView = z.object({ pass: z.array(z.string()), block: z.array(z.string()) });
export type IpListsView = z.infer<typeof ipListsView>;

export const getIpLists = defineContract({
  method: 'GET',
  path: '/ip-lists',
  operationId: 'getIpLists',
  summary: 'The global IP pass and block lists every site shares',
  tag: 'ip-lists',
  access: MANAGERS,
  response: ipListsView,
});

export const setIpLists = defineContract({
  method: 'PUT',
  path: '/ip-lists',
  operationId: 'setIpLists',
  summary: 'Replace the global lists (each bad line is a problem naming the list and the line)',
  tag: 'ip-lists',
  access: MANAGERS,
  body: z.object({ pass: entries, block: entries }).strict(),
  response: ipListsView,
});
