/**
 * The twelve CRS rule groups an operator can switch and tune one by one, keyed by the number in
 * the rule file's name (REQUEST-942-APPLICATION-ATTACK-SQLI.conf is group 942).
 */
export const GROUPS = ['944', '930', '934', '933', '932', '931', '943', '942', '941', '921', '920', '913'] as const;
export type GroupId = (typeof GROUPS)[number];

export interface GroupSetting {
  enabled: boolean;
  /** Paranoia level 1..4 for this group's rules. */
  level: number;
}

const FILE_GROUP = /(?:^|[\\/])REQUEST-(\d{3})-[^\\/]*$/;

/** The group index (into GROUPS) of a rule file, or -1 when the file is not one of the twelve. */
export function groupOfFile(file: string): number {
  const m = FILE_GROUP.exec(file);
  if (!m) return -1;
  return (GROUPS as readonly string[]).indexOf(m[1] ?? '');
}

/** The TX variables CRS reads to decide which paranoia levels run (3.x and 4.x names). */
export const PARANOIA_KEYS: ReadonlySet<string> = new Set([
  'paranoia_level',
  'executing_paranoia_level',
  'detection_paranoia_level',
  'blocking_paranoia_level',
]);
