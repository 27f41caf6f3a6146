/** English texts of the System page's console certificate card (issue 19, item 1); spread into en.ts. */
export const consoleTlsEn = {
  'consoleTls.title': 'Console certificate (HTTPS)',
  'consoleTls.description':
    "The console speaks HTTPS on its port. At first start Rampart made its own certificate authority and a certificate for this host's names and addresses; install the authority as trusted on the machines operators use, or upload a certificate of your own. Plain HTTP from other machines is sent to HTTPS.",
  'consoleTls.source': 'Certificate in use',
  'consoleTls.source.generated': "Made by the appliance's own authority",
  'consoleTls.source.uploaded': 'Uploaded',
  'consoleTls.source.files': 'Files given at start',
  'consoleTls.filesNote':
    'The certificate is read from RAMPART_CONSOLE_TLS_CERT and RAMPART_CONSOLE_TLS_KEY: change those files, or unset the variables to manage the certificate here.',
  'consoleTls.made': 'Made or uploaded',
  'consoleTls.uncoveredTitle': 'Some addresses are not named by the certificate',
  'consoleTls.uncovered': 'Browsers warn when the console is opened as {names}.',
  'consoleTls.ca': "Appliance's certificate authority",
  'consoleTls.caSubject': 'Authority',
  'consoleTls.caFingerprint': 'Authority SHA-256 fingerprint',
  'consoleTls.caValidTo': 'Authority valid until',
  'consoleTls.downloadCa': 'Download authority certificate',
  'consoleTls.downloaded': '{file} downloaded: install it as a trusted authority on the machines operators use.',
  'consoleTls.upload': 'Upload a certificate',
  'consoleTls.uploadHelp':
    'The certificate (then its chain) and its unencrypted private key, PEM. New connections use it at once; open ones keep theirs.',
  'consoleTls.save': 'Use this certificate',
  'consoleTls.saving': 'Checking…',
  'consoleTls.cancel': 'Cancel',
  'consoleTls.saved': 'Certificate for {names} in use from the next connection.',
  'consoleTls.useGenerated': "Use the appliance's own certificate",
  'consoleTls.useGeneratedTitle': "Go back to the appliance's own certificate?",
  'consoleTls.useGeneratedBody':
    "The uploaded certificate is forgotten and a new one, made by the appliance's authority for this host's names and addresses, is used from the next connection.",
  'consoleTls.usedGenerated': "The appliance's own certificate is in use again.",
  'consoleTls.loadError': 'The console certificate could not be read: {message}',
} as const;
