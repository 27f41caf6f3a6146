/**
 * Rule sets: loading a CRS folder (setup file, rules/*.conf in CRS order, Includes, data files,
 * version) into directives with every problem located by file and line; finding the installed one
 * (Debian/Ubuntu); unpacking uploaded archives safely; the product's 12 groups and each rule's
 * paranoia level. The loader never throws for bad rule files: it returns problems.
 */
export { loadRuleSet, dataFilePath, dataFileReader, dataLines, detectVersion } from './load.ts';
export type { LoadOptions, RuleSet } from './load.ts';
export { detectRuleSetDir, DEBIAN_LOCATION } from './detect.ts';
export type { InstalledRuleSet, RuleSetLocation } from './detect.ts';
export { extractArchive, readArchive, findRuleSetRoot, MAX_ENTRIES, MAX_BYTES } from './archive.ts';
export type { ArchiveProblemCode, ArchiveRefusal, ExtractedArchive, ExtractResult } from './archive.ts';
export { RULE_GROUPS, groupOf, ruleLevels, countGroupLevels, attributableRuleIds } from './groups.ts';
export type { RuleGroup, RuleLevel, ParanoiaLevel, GroupLevelCount } from './groups.ts';
