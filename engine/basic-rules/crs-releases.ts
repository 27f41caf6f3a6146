/**
 * The Core Rule Set releases the console offers to download, each with the SHA-256 of its content
 * (and of its `coreruleset-<version>-minimal.tar.gz` where known) pinned here. A download that
 * hashes to anything else is refused; a version whose pin is null is refused before anything is fetched.
 */

/** What the console's "get CRS" button asks for. */
export const DEFAULT_CRS_VERSION = '4.25.0';

/**
 * Where a release is fetched: `{version}` is replaced by the version (e.g. 4.25.0). An air-gapped
 * site points RAMPART_CRS_DOWNLOAD_URL at an internal mirror holding the same file.
 */
export const DEFAULT_CRS_DOWNLOAD_URL =
  'https://github.com/coreruleset/coreruleset/releases/download/v{version}/coreruleset-{version}-minimal.tar.gz';

/**
 * What a release must hash to. `contentSha256` (required) is the SHA-256 of the release's content
 * (crs-digest.ts: every `crs-setup.conf*` and `rules/` file, the way
 * `(find rules -type f; ls crs-setup.conf*) | LC_ALL=C sort | xargs sha256sum | sha256sum` prints it
 * in the release folder); the unpacked archive must match it before anything of it runs.
 * `archiveSha256`, when known, is the SHA-256 of the archive's bytes, checked first.
 */
export interface CrsPin {
  archiveSha256: string | null;
  contentSha256: string;
}

/** Version -> its pin; null: offered by name but not verified, so never downloaded. */
export type CrsPins = Readonly<Record<string, CrsPin | null>>;

/**
 * CRS v4.25.0. The content hash was worked out from the release's files as the project's test
 * data carries them (`crs-setup.conf.example` and `rules/`, 51 files; the regression tests run
 * those very files). The SHA-256 of the published archive itself could not be obtained where this
 * was written (no access to the release page), so it is not pinned: the content check carries the
 * guarantee, and whoever can read the release's `.sha256` asset may add it.
 */
export const CRS_4_25_0: CrsPin = {
  archiveSha256: null,
  contentSha256: '4918b7b16ea89b0b2848bd66b69e242ca900329629f80c0c3abe66f8c346d9a6',
};

export const CRS_RELEASE_PINS: CrsPins = {
  '4.25.0': CRS_4_25_0,
};

/** The archive's file name, as the CRS project publishes it. */
export function crsArchiveName(version: string): string {
  return `coreruleset-${version}-minimal.tar.gz`;
}

/** The download address for `version` from a template with `{version}` placeholders. */
export function crsDownloadUrl(template: string, version: string): string {
  return template.replaceAll('{version}', encodeURIComponent(version));
}
