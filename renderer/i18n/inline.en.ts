/** English texts of a plugin site's inline mode (nginx passes requests through Rampart); spread into en.ts. */
export const inlineEn = {
  'inline.title': 'Request bodies',
  'inline.help':
    "By default nginx asks Rampart about each request's head only (auth_request), so attacks carried in request bodies pass. In inline mode nginx passes every request through Rampart, which inspects the body and the response and forwards the request to your upstream.",
  'inline.mode': 'How nginx asks Rampart',
  'inline.verdict': 'Verdict only (auth_request, no request bodies)',
  'inline.inline': 'Inline: every request passes through Rampart (bodies inspected)',
  'inline.cost':
    'Inline mode puts Rampart on the path of every byte: one more hop, answers fetched uncompressed (let nginx compress them), and requests fail with 502 while Rampart is down. Download the plugin bundle again after switching.',
  'inline.port': "Rampart's port for this site",
  'inline.portHelp': 'nginx passes the requests here (plain HTTP: nginx keeps ending TLS). Default {value}.',
  'inline.upstream': 'Upstream address',
  'inline.upstreamHelp': "What nginx's location proxied to before: an IP address or host name and a port.",
  'inline.upstreamProtocol': 'Upstream protocol',
} as const;
