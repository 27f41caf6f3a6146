import { z } from 'zod';
import { defineContract } from './contract.ts';
import {
  accountView,
  booleanQuery,
  email,
  idParams,
  linkDelivery,
  listQuery,
  password,
  role,
} from './common.schema.ts';

const ADMIN = ['administrator'] as const;

export const getMyAccount = defineContract({
  method: 'GET',
  path: '/me',
  operationId: 'getMyAccount',
  summary: 'My account: name, ID, role, permissions',
  tag: 'account',
  access: 'signedIn',
  response: accountView,
});

export const changeMyPassword = defineContract({
  method: 'PUT',
  path: '/me/password',
  operationId: 'changeMyPassword',
  summary: 'Change my password (other sessions of this account end)',
  tag: 'account',
  access: 'signedIn',
  body: z.object({ currentPassword: password, newPassword: password }).strict(),
  status: 204,
});

export const listAccounts = defineContract({
  method: 'GET',
  path: '/accounts',
  operationId: 'listAccounts',
  summary: 'Accounts, newest first, filtered by activation and enabled state',
  tag: 'enterprise',
  access: ADMIN,
  query: z
    .object({
      activation: z.enum(['pending', 'activated'], { error: 'must be pending or activated' }).optional(),
      enabled: booleanQuery.optional(),
      ...listQuery,
    })
    .strict(),
  response: z.object({ items: z.array(accountView), nextCursor: z.string().nullable(), total: z.number() }),
});

export const createAccount = defineContract({
  method: 'POST',
  path: '/accounts',
  operationId: 'createAccount',
  summary: 'Create an account and send its activation e-mail',
  tag: 'enterprise',
  access: ADMIN,
  body: z.object({ email, role }).strict(),
  status: 201,
  response: z.object({ account: accountView, delivery: linkDelivery }),
});

export const getAccount = defineContract({
  method: 'GET',
  path: '/accounts/:id',
  operationId: 'getAccount',
  summary: 'One account',
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  response: accountView,
});

export const resendActivationEmail = defineContract({
  method: 'POST',
  path: '/accounts/:id/activation-email',
  operationId: 'resendActivationEmail',
  summary: 'Send a fresh activation link to an account awaiting activation',
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  response: linkDelivery,
});

export const disableAccount = defineContract({
  method: 'POST',
  path: '/accounts/:id/disable',
  operationId: 'disableAccount',
  summary: 'Disable an account (not your own, not the tenant account)',
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  response: accountView,
});

export const enableAccount = defineContract({
  method: 'POST',
  path: '/accounts/:id/enable',
  operationId: 'enableAccount',
  summary: 'Enable a disabled account',
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  response: accountView,
});

export const changeAccountRole = defineContract({
  method: 'PUT',
  path: '/accounts/:id/role',
  operationId: 'changeAccountRole',
  summary: 'Modify the permission (role) of an account',
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  body: z.object({ role }).strict(),
  response: accountView,
});

export const resetAccountPassword = defineContract({
  method: 'POST',
  path: '/accounts/:id/password-reset',
  operationId: 'resetAccountPassword',
  summary: 'E-mail a password-reset link to an account',
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  response: linkDelivery,
});

export const deleteAccount = defineContract({
  method: 'DELETE',
  path: '/accounts/:id',
  operationId: 'deleteAccount',
  summary: 'Delete an account (not your own, not the tenant account)',
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  status: 204,
});

export type Role = z.output<typeof role>;
export type LinkDelivery = z.output<typeof linkDelivery>;
export type AccountList = z.output<typeof listAccounts.response>;
