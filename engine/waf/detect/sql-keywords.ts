/**
 * The SQL words the tokenizer tells apart, each mapped to its fingerprint class. Chosen from what
 * an injection needs (leave the data context, add logic or a statement, neutralise the rest), not
 * from any dialect's full grammar: a word missing here is a bareword (`n`), which is the safe side.
 *
 * Classes: `E` statement keyword, `U` union, `k` clause keyword, `&` boolean connective,
 * `o` word operator, `1` literal, `f` SQL function, `F` function an attacker uses for its side
 * effect (time delay, file or network access, error-based extraction), `B` order/group (by).
 */
export type WordClass = 'E' | 'U' | 'k' | '&' | 'o' | '1' | 'f' | 'F' | 'B';

const TABLE: Record<WordClass, string> = {
  E: 'select insert update delete drop create alter truncate exec execute declare waitfor shutdown grant revoke merge handler',
  U: 'union intersect except',
  k: 'from where into table limit offset having delay procedure values join top case when then else end as set database schema column fetch returning',
  '&': 'and or xor',
  o: 'not is in like rlike ilike regexp similar between sounds div mod collate escape',
  '1': 'null true false unknown',
  B: 'order group',
  f: [
    'ascii char chr concat concat_ws count substr substring substring_index mid left right length len lower upper',
    'hex unhex md5 sha1 sha2 cast convert coalesce ifnull isnull nullif if iif ord conv bin',
    'user current_user session_user system_user database version schema_name db_name',
    'group_concat string_agg listagg char_length position instr locate replace reverse',
    'rand floor ceil round abs exp power sqrt log elt field make_set json_extract json_keys',
    'xml_agg xmlagg row_to_json query_to_xml to_char to_number nvl decode encode',
  ].join(' '),
  F: [
    'sleep benchmark pg_sleep pg_read_file pg_ls_dir lo_import lo_export load_file',
    'extractvalue updatexml xmltype dbms_pipe dbms_lock utl_http utl_inaddr httpuritype',
    'xp_cmdshell xp_dirtree xp_fileexist sp_executesql openrowset opendatasource',
    'get_lock randomblob sys_eval sys_exec',
  ].join(' '),
};

export const WORD_CLASSES: ReadonlyMap<string, WordClass> = (() => {
  const map = new Map<string, WordClass>();
  for (const cls of Object.keys(TABLE) as WordClass[]) {
    for (const word of TABLE[cls].split(/\s+/)) if (word) map.set(word, cls);
  }
  return map;
})();

/** Longest word worth a lookup; longer words are barewords without allocating a lower-case copy. */
export const MAX_KEYWORD_LENGTH = 20;
