// Hosting, cloud and CDN networks by autonomous system number. Facts, kept by hand: add an ASN
// when a provider announces a new one. An ASN not listed here still counts as a data centre when
// its registered organisation name says so (ORG_PATTERN), so small hosters are caught without
// listing each of them; the name shown is then the organisation's own.

const PROVIDERS: readonly (readonly [name: string, asns: readonly number[]])[] = [
  ['Amazon Web Services', [16509, 14618, 8987]],
  ['Google Cloud', [396982, 19527]],
  ['Google', [15169]],
  ['Microsoft Azure', [8075, 8068]],
  ['Oracle Cloud', [31898]],
  ['IBM Cloud', [36351]],
  ['Alibaba Cloud', [45102, 37963]],
  ['Tencent Cloud', [132203, 45090]],
  ['Huawei Cloud', [136907, 55990]],
  ['Baidu', [38365]],
  ['ByteDance', [396986]],
  ['DigitalOcean', [14061]],
  ['Akamai Linode', [63949]],
  ['Akamai', [20940, 16625]],
  ['Cloudflare', [13335, 209242]],
  ['Fastly', [54113]],
  ['OVHcloud', [16276]],
  ['Hetzner', [24940, 213230]],
  ['Vultr', [20473]],
  ['Scaleway', [12876]],
  ['Contabo', [51167]],
  ['Leaseweb', [60781, 16265, 28753, 30633, 59253]],
  ['Hostinger', [47583]],
  ['GoDaddy', [26496, 398101]],
  ['Rackspace', [27357, 33070, 19994]],
  ['IONOS', [8560]],
  ['Strato', [6724]],
  ['netcup', [197540]],
  ['Aruba', [31034]],
  ['G-Core Labs', [199524]],
  ['Servers.com', [7979]],
  ['WorldStream', [49981]],
  ['FranTech (BuyVM)', [53667]],
  ['M247', [9009]],
  ['DataCamp (CDN77)', [60068]],
  ['Psychz Networks', [40676]],
  ['QuadraNet', [8100]],
  ['ColoCrossing', [36352]],
  ['Zenlayer', [21859]],
  ['UCloud', [135377]],
  ['Yandex Cloud', [200350]],
  ['Selectel', [49505]],
  ['Timeweb', [9123]],
  ['Equinix Metal', [54825]],
  ['Kamatera', [36007]],
  ['Hostwinds', [54290]],
  ['InterServer', [19318]],
  ['Liquid Web', [32244]],
  ['Namecheap', [22612]],
  ['Newfold Digital (Bluehost)', [46606]],
  ['DreamHost', [26347]],
  ['Serverius', [50673]],
  ['Clouvider', [62240]],
  ['SAKURA Internet', [9370]],
];

const BY_ASN = new Map<number, string>();
for (const [name, asns] of PROVIDERS) for (const asn of asns) BY_ASN.set(asn, name);

/** Words a hosting company's registered name carries; whole words only, to spare "Serverless Ltd" etc. */
const ORG_PATTERN =
  /\b(?:hosting|hoster|web ?hosting|servers?|data ?cent(?:er|re)s?|datacenters?|colo(?:cation)?|vps|dedicated|cloud)\b/i;

/** Data-centre name for a network, or '' when it looks like an access network. */
export function dataCentreName(asn: number, org: string): string {
  const known = BY_ASN.get(asn);
  if (known !== undefined) return known;
  return org !== '' && ORG_PATTERN.test(org) ? org : '';
}
