/**
 * Settings: one validated object read once at start-up from environment variables (RAMPART_*)
 * and equivalent CLI flags (--console-port 9080). A bad value stops start-up with a message that
 * names the variable. Nothing else in the engine reads process.env. Ports saved on the System page
 * win over the environment's at start (`withPorts`); engine/admin-settings merges the rest.
 */
export { loadSettings, flagsToEnv, isLoopbackHost, withPorts, SETTING_KEYS } from './settings.ts';
export type { PortOverrides, Settings, SmtpSettings } from './settings.ts';
