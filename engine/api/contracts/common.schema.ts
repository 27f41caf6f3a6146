import { z } from 'zod';
import { EDITIONS, MODULES, PAGES, ROLES } from '#engine/shared';

/** Input limits stated once; the README of engine/api lists them for people. */
export const LIMITS = {
  email: 254,
  password: 128,
  token: 128,
  licence: 64 * 1024,
  id: 64,
} as const;

export const email = z
  .string({ error: 'must be a string' })
  .trim()
  .max(LIMITS.email, `must be at most ${LIMITS.email} characters`)
  .pipe(z.email({ error: 'must be a valid e-mail address' }))
  .meta({ format: 'email' });

/**
 * Length and classes are checked by the password rule, which gives the precise reason; the
 * document states the rule for people and for generated clients.
 */
export const password = z
  .string({ error: 'must be a string' })
  .min(1, 'is required')
  .max(LIMITS.password, `must be at most ${LIMITS.password} characters`)
  .meta({
    description:
      'A new password must be 8 to 16 characters (counted after Unicode NFKC normalisation, the form that is hashed), ' +
      'mix at least 3 of uppercase letters, lowercase letters, digits and symbols, and not be a commonly used password',
  });

export const role = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });

export const edition = z.enum(EDITIONS);

export const idParams = z.object({ id: z.string().min(1).max(LIMITS.id) }).strict();

export const linkToken = z
  .string()
  .min(1, 'is required')
  .max(LIMITS.token, `must be at most ${LIMITS.token} characters`);

export const timestamp = z.number().int().describe('UTC epoch milliseconds');

export const accountView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  tenant: z.boolean(),
  status: z.enum(['pending', 'activated']),
  enabled: z.boolean(),
  createdAt: timestamp,
  activatedAt: timestamp.nullable(),
  lastSignInAt: timestamp.nullable(),
  permissions: z.array(z.enum(PAGES)),
  /** Whether the account signs in with a second factor (TOTP); never the secret itself. */
  twoFactorEnabled: z.boolean(),
});
export type AccountView = z.infer<typeof accountView>;

export const linkDelivery = z.object({
  emailSent: z.boolean(),
  link: z.string().nullable().describe('Present only when the e-mail could not be sent'),
  mailError: z.string().nullable(),
  expiresAt: timestamp,
});

export const moduleKey = z.enum(MODULES);

export interface MenuItem {
  id: string;
  path: string;
  children?: MenuItem[];
}

export const menuItem: z.ZodType<MenuItem> = z
  .lazy(() => z.object({ id: z.string(), path: z.string(), children: z.array(menuItem).optional() }))
  .meta({ id: 'MenuItem' });

export const sessionView = z.object({
  account: accountView,
  csrfToken: z.string(),
  idleExpiresAt: timestamp,
  absoluteExpiresAt: timestamp,
  edition,
  version: z.string(),
  smtpConfigured: z.boolean(),
  navigation: z.array(menuItem),
  /** The administrators' policy holds this session to two-factor enrolment until it is confirmed. */
  twoFactorEnrolmentRequired: z.boolean(),
});
export type SessionView = z.infer<typeof sessionView>;

export const listQuery = {
  limit: z.coerce.number().int().min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
  cursor: z.string().max(200).optional(),
};

export const booleanQuery = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((v) => v === 'true');
