/** English texts of the System page's administration settings (issue 19, item 7); spread into en.ts. */
export const adminSettingsEn = {
  'adminSettings.title': 'Administration settings',
  'adminSettings.source.console': 'Set in the console',
  'adminSettings.source.environment': 'From the environment',
  'adminSettings.source.default': 'Default',
  'adminSettings.save': 'Save',
  'adminSettings.saving': 'Saving…',
  'adminSettings.saved': 'Saved.',
  'adminSettings.useEnvironment': 'Use environment settings',
  'adminSettings.useEnvironment.heading': 'Use the environment settings?',
  'adminSettings.useEnvironment.confirm': 'Use environment settings',
  'adminSettings.useEnvironment.done': 'The environment settings apply again.',
  'adminSettings.loadError': 'The settings could not be loaded: {message}',

  'adminSettings.smtp.title': 'Mail',
  'adminSettings.smtp.description':
    'The SMTP server Rampart sends activation links, password resets and rule notifications through. Saved here, it wins over RAMPART_SMTP_* and applies at once.',
  'adminSettings.smtp.none': 'No SMTP server is configured: links are shown to the administrator instead of sent.',
  'adminSettings.smtp.resetBody':
    'The SMTP server saved here is forgotten, with its password. Mail then goes through the server named by RAMPART_SMTP_*, or is not sent when the environment names none.',
  'adminSettings.smtp.passwordSet': 'A password is set. Leave the field empty to keep it.',
  'adminSettings.smtp.passwordNotSet': 'No password is set.',
  'adminSettings.smtp.passwordRequired': 'Enter the password for this user name.',
  'adminSettings.smtp.secureHelp':
    'TLS from the first byte (usually port 465). Off: STARTTLS when the server offers it.',
  'adminSettings.smtp.userHelp': 'Leave empty when the server accepts mail without signing in.',
  'adminSettings.smtp.fromHelp': 'The sender, e.g. Rampart <rampart@example.com>.',
  'adminSettings.smtp.testTitle': 'Send a test mail',
  'adminSettings.smtp.testHelp': 'Sent through the server in use now (save your changes first).',
  'adminSettings.smtp.testSend': 'Send test mail',
  'adminSettings.smtp.testSending': 'Sending…',
  'adminSettings.smtp.testSent': 'The test mail to {to} was accepted by the SMTP server.',
  'adminSettings.smtp.testFailed': 'The test mail could not be sent: {error}',
  'adminSettings.smtp.saved': 'The SMTP server is saved; mail goes through it from now on.',

  'adminSettings.session.title': 'Sign-in sessions',
  'adminSettings.session.description':
    'How long a console session lasts without activity, and at most. Changes apply at once, to open sessions too.',
  'adminSettings.session.idleHelp': '5 to 1440 minutes without a request.',
  'adminSettings.session.absoluteHelp': '1 to 168 hours after signing in, however active.',
  'adminSettings.session.resetBody':
    'The lengths saved here are forgotten: RAMPART_SESSION_IDLE_MINUTES and RAMPART_SESSION_ABSOLUTE_HOURS ({idle} minutes, {absolute} hours) apply again, at once.',
  'adminSettings.session.saved': 'The session lengths are saved and apply now.',

  'adminSettings.ports.title': 'Ports',
  'adminSettings.ports.description':
    'Where the console, the gateway API and the TLS log intake listen. Saved ports win over the environment and apply at the next start of Rampart.',
  'adminSettings.ports.restartRequired':
    'Restart required: Rampart listens on the saved ports from its next start. Until then the ports in use stay as they are.',
  'adminSettings.ports.inUse': 'In use now: {port}',
  'adminSettings.ports.inUseOff': 'In use now: off',
  'adminSettings.ports.nextStart': 'From the next start: {port}',
  'adminSettings.ports.environment': 'Empty: the environment value ({port}).',
  'adminSettings.ports.environmentOff': 'Empty: the environment value (off).',
  'adminSettings.ports.siteProxyPorts': "The CNAME sites' proxy ports, which must not be chosen: {ports}.",
  'adminSettings.ports.taken': 'Port {port} is already the {by} port: choose another.',
  'adminSettings.ports.by.console': 'console',
  'adminSettings.ports.by.gateway': 'gateway API',
  'adminSettings.ports.by.intake': 'log intake',
  'adminSettings.ports.by.site': "a CNAME site's proxy",
  'adminSettings.ports.saved': 'The ports are saved. Restart Rampart to use them.',
  'adminSettings.ports.savedNoRestart': 'The ports are saved.',

  'adminSettings.twoFactor.title': 'Two-factor sign-in',
  'adminSettings.twoFactor.description':
    'Require administrators to sign in with a second factor (an authenticator app code) after their password.',
  'adminSettings.twoFactor.label': 'Require two-factor sign-in for administrators',
  'adminSettings.twoFactor.ownMissing':
    'Set up two-factor sign-in for your own account first (My account): otherwise you could not sign in once it is required.',
  'adminSettings.twoFactor.onHeading': 'Require two-factor sign-in?',
  'adminSettings.twoFactor.onBody':
    'Administrators without a second factor must set one up at their next sign-in before they can do anything else.',
  'adminSettings.twoFactor.offHeading': 'Stop requiring two-factor sign-in?',
  'adminSettings.twoFactor.offBody':
    'Administrators may then sign in with their password alone; those who set up a second factor keep using it.',
  'adminSettings.twoFactor.on': 'Required',
  'adminSettings.twoFactor.off': 'Not required',
  'adminSettings.twoFactor.turnOn': 'Require',
  'adminSettings.twoFactor.turnOff': 'Stop requiring',
  'adminSettings.twoFactor.savedOn': 'Administrators must now sign in with a second factor.',
  'adminSettings.twoFactor.savedOff': 'Administrators may sign in without a second factor.',

  'field.host': 'SMTP server',
  'field.port': 'Port',
  'field.secure': 'Secure connection (TLS)',
  'field.user': 'User name',
  'field.from': 'Sender',
  'field.to': 'Send to',
  'field.idleMinutes': 'Idle timeout (minutes)',
  'field.absoluteHours': 'Longest session (hours)',
  'field.console': 'Console port',
  'field.gateway': 'Gateway API port',
  'field.intake': 'Log intake port',
  'field.requireTwoFactorForAdmins': 'Two-factor sign-in for administrators',
} as const;
