/**
 * IPv4 and IPv6 networks (address plus prefix length) for @ipMatch and @ipMatchFromFile. An
 * address is held as 16-bit words (2 for IPv4, 8 for IPv6), so matching allocates nothing but
 * the parsed input.
 */
export interface Network {
  words: Uint16Array;
  prefix: number;
}

export function parseIpv4(s: string): Uint16Array | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    bytes.push(v);
  }
  return Uint16Array.of(
    ((bytes[0] as number) << 8) | (bytes[1] as number),
    ((bytes[2] as number) << 8) | (bytes[3] as number),
  );
}

export function parseIpv6(s: string): Uint16Array | undefined {
  let text = s;
  const lastColon = text.lastIndexOf(':');
  if (lastColon >= 0 && text.slice(lastColon + 1).includes('.')) {
    // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two 16-bit groups.
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4[0] as number).toString(16)}:${(v4[1] as number).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  if (!head || !rest) return undefined;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const words = new Uint16Array(8);
  head.forEach((w, k) => (words[k] = w));
  rest.forEach((w, k) => (words[8 - rest.length + k] = w));
  return words;
}

/** `10.0.0.0/8`, `192.168.1.1`, `2001:db8::/32`, `::1`. Throws on anything else. */
export function parseNetwork(entry: string): Network {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const words = address.includes(':') ? parseIpv6(address) : parseIpv4(address);
  if (!words) throw new Error(`invalid IP address "${address}"`);
  const bits = words.length * 16;
  let prefix = bits;
  if (slash >= 0) {
    const p = entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > bits) throw new Error(`invalid prefix length in "${entry}"`);
    prefix = Number(p);
  }
  return { words, prefix };
}

export function parseAddress(input: string): Uint16Array | undefined {
  const s = input.trim();
  return s.includes(':') ? parseIpv6(s) : parseIpv4(s);
}

export function inNetwork(address: Uint16Array, net: Network): boolean {
  if (address.length !== net.words.length) return false;
  let bits = net.prefix;
  for (let k = 0; bits > 0; k++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((address[k] as number) & mask) !== ((net.words[k] as number) & mask)) return false;
  }
  return true;
}

export function networkMatcher(networks: readonly Network[]): (input: string) => boolean {
  return (input) => {
    const address = parseAddress(input);
    if (!address) return false;
    for (const net of networks) if (inNetwork(address, net)) return true;
    return false;
  };
}
