/** English texts of the global IP lists page (Rule Management > Global IP lists); spread into en.ts. */
export const ipListsEn = {
  'ipLists.title': 'Global IP lists',
  'ipLists.link': 'Global IP lists',
  'ipLists.intro':
    'Addresses and CIDR ranges every protected site shares: clients on the pass list are let through unchecked, clients on the block list are denied.',
  'ipLists.order.title': 'The order the gateway reads them in',
  'ipLists.order.site': 'The site’s own pass list, then its own block list (Site management).',
  'ipLists.order.globalPass': 'The global pass list: the client is let through unchecked (IGNORE).',
  'ipLists.order.globalBlock': 'The global block list: the client is denied (BLOCKLIST).',
  'ipLists.order.note':
    'The first list that holds the client decides, so an address on both global lists passes (the pass list wins), and a site’s own block list wins over the global pass list. Sites in pass mode and sites without the plugin are not checked against these lists.',
  'ipLists.list.pass': 'Pass list',
  'ipLists.list.block': 'Block list',
  'ipLists.list.pass.help': 'Let through unchecked on every site. One entry per line, at most {max}.',
  'ipLists.list.block.help': 'Denied on every site. One entry per line, at most {max}.',
  'ipLists.placeholder': '203.0.113.7\n198.51.100.0/24\n2001:db8::/32',
  'ipLists.empty.title': 'No global entries yet',
  'ipLists.empty.body':
    'Both lists are empty, so only each site’s own lists apply. Type addresses or CIDR ranges below, or import them from a text file, then save.',
  'ipLists.unsaved': 'Unsaved changes',
  'ipLists.saved':
    'Global IP lists saved: {pass, plural, one {# pass entry} other {# pass entries}}, {block, plural, one {# block entry} other {# block entries}}.',
  'ipLists.notSaved': 'Nothing was saved: correct the marked lines and save again.',
  'ipLists.problem.line': 'Line {line}: {detail}',
  'ipLists.problem.notIp': '“{value}” is not an IP address or CIDR range.',
  'ipLists.problem.prefixLength': '“{value}” has an invalid prefix length (0 to {max}).',
  'ipLists.problem.tooMany': 'At most {max} entries per list.',
  'ipLists.import': 'Import from file',
  'ipLists.import.title': 'Import into the {list}',
  'ipLists.import.body':
    '{file} holds {count, plural, one {# entry} other {# entries}}; the {list} holds {current}. Nothing is saved until you press Save.',
  'ipLists.import.how': 'What to do with the entries already in the list',
  'ipLists.import.merge': 'Keep them and add the file’s new entries',
  'ipLists.import.replace': 'Replace them with the file’s entries',
  'ipLists.import.submit': 'Import',
  'ipLists.import.merged':
    '{count, plural, one {# new entry} other {# new entries}} from {file} added to the {list}. Save to apply.',
  'ipLists.import.replaced':
    'The {list} now holds the {count, plural, one {# entry} other {# entries}} of {file}. Save to apply.',
  'ipLists.export': 'Export',
  'ipLists.remove.title': 'Remove entries from the global lists?',
  'ipLists.remove.body': 'Saving removes saved entries: {lists} Every site stops applying them at once.',
  'ipLists.remove.list': '{list}: {count, plural, one {# entry} other {# entries}} ({examples}).',
  'ipLists.remove.submit': 'Remove and save',
};
