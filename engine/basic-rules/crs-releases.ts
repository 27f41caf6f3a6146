/**
 * The Core Rule Set releases the console offers to download, each with the SHA-256 of its
 * `coreruleset-<version>-minimal.tar.gz` pinned here. A download whose bytes hash to anything else
 * is refused; a version whose pin is null (not verified) is refused before anything is fetched.
 */

/** What the console's "get CRS" button asks for. */
export const DEFAULT_CRS_VERSION = '4.25.0';

/**
 * Where a release is fetched: `{version}` is replaced by the version (e.g. 4.25.0). An air-gapped
 * site points RAMPART_CRS_DOWNLOAD_URL at an internal mirror holding the same file.
 */
export const DEFAULT_CRS_DOWNLOAD_URL =
  'https://github.com/coreruleset/coreruleset/releases/download/v{version}/coreruleset-{version}-minimal.tar.gz';

/** Version -> lower-case hex SHA-256 of the release's minimal archive; null: no verified value yet. */
export type CrsPins = Readonly<Record<string, string | null>>;

/**
 * NOT VERIFIED: the published SHA-256 of coreruleset-4.25.0-minimal.tar.gz could not be obtained
 * where this was written (no access to GitHub, and no stored page quotes it). Until someone fills in
 * the value from the release's own `.sha256` asset (and checks it against a second download), the
 * engine refuses to download 4.25.0 rather than accept whatever hash arrives.
 */
export const CRS_4_25_0_MINIMAL_SHA256: string | null = null;

export const CRS_RELEASE_PINS: CrsPins = {
  '4.25.0': CRS_4_25_0_MINIMAL_SHA256,
};

/** The archive's file name, as the CRS project publishes it. */
export function crsArchiveName(version: string): string {
  return `coreruleset-${version}-minimal.tar.gz`;
}

/** The download address for `version` from a template with `{version}` placeholders. */
export function crsDownloadUrl(template: string, version: string): string {
  return template.replaceAll('{version}', encodeURIComponent(version));
}
