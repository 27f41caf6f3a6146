/**
 * The twelve CRS rule groups an operator can switch and tune one by one: the one table of them.
 * Each has the product's id (`001` to `012`), a name, and the number in its CRS rule file's name
 * (REQUEST-942-APPLICATION-ATTACK-SQLI.conf is group 942, `008`). A group's index in this table
 * is its index everywhere (TransactionOptions.groupLevels, CompileInput.disabledGroups).
 */

export interface RuleGroup {
  /** `001` to `012`. */
  id: string;
  name: string;
  /** The CRS file number: 944 for REQUEST-944-APPLICATION-ATTACK-JAVA.conf. */
  crsFile: number;
}

const TABLE = [
  { id: '001', name: 'Java attacks', crsFile: 944 },
  { id: '002', name: 'File and path attacks', crsFile: 930 },
  { id: '003', name: 'Node.js attacks', crsFile: 934 },
  { id: '004', name: 'PHP injection', crsFile: 933 },
  { id: '005', name: 'Remote code execution', crsFile: 932 },
  { id: '006', name: 'Remote file inclusion', crsFile: 931 },
  { id: '007', name: 'Session fixation', crsFile: 943 },
  { id: '008', name: 'SQL injection', crsFile: 942 },
  { id: '009', name: 'Cross-site scripting', crsFile: 941 },
  { id: '010', name: 'Protocol attacks', crsFile: 921 },
  { id: '011', name: 'Protocol enforcement', crsFile: 920 },
  { id: '012', name: 'Port and environment scanners', crsFile: 913 },
] as const satisfies readonly RuleGroup[];

export const RULE_GROUPS: readonly RuleGroup[] = TABLE;

/** A group by its CRS file number, as a string (`'942'`). */
export type GroupId = `${(typeof TABLE)[number]['crsFile']}`;

/** The groups' CRS file numbers, in table order. */
export const GROUPS: readonly GroupId[] = TABLE.map((g) => `${g.crsFile}` as const);

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
