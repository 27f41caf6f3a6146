/** English texts of a bypass site's tab (the web SDK's script tag); spread into en.ts. */
export const bypassEn = {
  'bypass.title': 'Bypass access: monitoring only',
  'bypass.body':
    'Bypass access never blocks: the web SDK checks each page view in the browser and logs it (detection log and access log).',
  'bypass.tagTitle': 'Web SDK code',
  'bypass.tagHelp':
    "Insert this tag in the <head> of every page of {domain}. Pages load it from Rampart's gateway address; only pages on {domain} and its subdomains may report.",
  'bypass.tagLabel': 'Script tag to insert',
  'bypass.saveFirst': 'Fill in the site name and domain and save the site: its script tag appears here.',
  'bypass.addressFailed': 'The gateway address could not be read: {error}',
  'bypass.miniProgram':
    'For a mini-program, no web SDK code is used: integrate the mini-program SDK instead (download from the site list).',
  'bypass.downloadMiniProgram': 'Download mini-program SDK',
  'bypass.downloadedMiniProgram':
    'Mini-program SDK {file} downloaded: copy it into the mini-program and follow its README. It holds the Access Key.',
} as const;
