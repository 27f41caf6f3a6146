/**
 * Settings: one validated object read once at start-up from environment variables (RAMPART_*)
 * and equivalent CLI flags (--console-port 9080). A bad value stops start-up with a message that
 * names the variable. Nothing else in the engine reads process.env.
 */
export { loadSettings, flagsToEnv, isLoopbackHost, SETTING_KEYS } from './settings.ts';
export type { Settings, SmtpSettings } from './settings.ts';
