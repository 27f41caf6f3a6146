import type { CompileEnv, OperatorDef } from '../types.ts';
import { phraseOperator } from './pm.ts';
import { NO_POSITION, dataFileEntries } from './phrase-list.ts';

/**
 * pmFromFile (alias pmf): like @pm, with the phrases read from data files, one phrase per line
 * (spaces inside a line are part of the phrase); blank lines and `#` comment lines skipped.
 *
 * Arguments: one or more data file names separated by spaces, resolved by the engine beside the
 * rule file (env.readDataFile). URLs are not fetched.
 *
 * Example: `SecRule REQUEST_FILENAME "@pmFromFile restricted-files.data" "id:3,deny"`
 */
export const pmFromFile: OperatorDef = {
  name: 'pmFromFile',
  compile(argument, env) {
    return phraseOperator(phrasesOf(argument, env));
  },
  required: (argument, env) => phrasesOf(argument, env),
};

function phrasesOf(argument: string, env: CompileEnv): string[] {
  const phrases: string[] = [];
  for (const name of argument
    .trim()
    .split(/\s+/)
    .filter((n) => n !== '')) {
    if (/^https?:\/\//i.test(name)) throw new Error(`@pmFromFile: remote data files are not supported (${name})`);
    phrases.push(...dataFileEntries(env.readDataFile(name, NO_POSITION)));
  }
  return phrases;
}

/** pmf: the short name of @pmFromFile. */
export const pmf: OperatorDef = { ...pmFromFile, name: 'pmf' };
