/**
 * English texts of the false-positive workflow (issue 18): a site's exclusions of Core Rule Set
 * rules and those learned from its stored requests, rules switched off in a group's list, the allowed
 * content types, and "Create exception" on the search page; spread into en.ts.
 */
export const wafExclusionsEn = {
  'exclusions.title': 'Rule exclusions',
  'exclusions.help':
    'Core Rule Set rules this site does not apply, whole or on one parameter, header or cookie, on every path or some: your answers to requests a rule blocked wrongly. Each keeps its reason.',
  'exclusions.add': 'Add exclusion',
  'exclusions.added': 'Exclusion of rule {id} added. It applies from the next request.',
  'exclusions.removed': 'Exclusion of rule {id} removed: the rule applies again from the next request.',
  'exclusions.col.rule': 'Rule',
  'exclusions.col.target': 'Excluded on',
  'exclusions.col.path': 'Where',
  'exclusions.col.reason': 'Reason',
  'exclusions.col.by': 'Created',
  'exclusions.col.operations': 'Operations',
  'exclusions.notInRuleSet': 'Not in the running rule set',
  'exclusions.remove': 'Remove',
  'exclusions.removeTitle': 'Remove exclusion',
  'exclusions.removeBody':
    'Remove the exclusion of rule {id} ({target}, {path})? The rule applies there again from the next request, and may block the requests it was made for.',
  'exclusions.removeSubmit': 'Remove',
  'exclusions.empty.title': 'No rules are excluded',
  'exclusions.empty.body':
    'When a rule blocks legitimate requests, open one of them on the search page and choose Create exception: it proposes the narrowest exclusion and shows what it would have let through. Or add an exclusion here.',
  'exclusions.empty.toSearch': 'Open the access log',
  'exclusions.field.ruleId': 'Rule ID',
  'exclusions.field.target': 'Excluded on',
  'exclusions.field.path': 'Where',
  'exclusions.field.reason': 'Reason',
  'exclusions.reasonHelp': 'Required: why the rule is wrong here, for whoever reads it later.',
  'exclusions.reasonRequired': 'Reason is required: say why the rule is wrong here.',
  'exclusions.ruleIdInvalid': 'Rule ID must be the number of a Core Rule Set rule, such as 942100.',
  'exclusions.taken': 'This rule is already excluded here, on the same target and path.',
  'exclusions.scope.exact': 'This path only',
  'exclusions.scope.prefix': 'Every path starting with it',
  'exclusions.scope.every': 'Every path',
  'exclusions.path.every': 'every path',
  'exclusions.path.exact': 'path {path}',
  'exclusions.path.prefix': 'paths starting with {prefix}',
  'exclusions.target.whole': 'whole rule',
  'exclusions.target.param': 'parameter {name}',
  'exclusions.target.queryParam': 'query parameter {name}',
  'exclusions.target.bodyParam': 'body parameter {name}',
  'exclusions.target.paramName': 'the name of parameter {name}',
  'exclusions.target.header': 'header {name}',
  'exclusions.target.headerName': 'the name of header {name}',
  'exclusions.target.cookie': 'cookie {name}',
  'exclusions.target.cookieName': 'the name of cookie {name}',
  'exclusions.target.file': 'uploaded file {name}',
  'exclusions.target.allParams': 'every parameter',
  'exclusions.target.allQueryParams': 'every query parameter',
  'exclusions.target.allBodyParams': 'every body parameter',
  'exclusions.target.allParamNames': 'every parameter name',
  'exclusions.target.allHeaders': 'every header',
  'exclusions.target.allCookies': 'every cookie',
  'exclusions.target.body': 'the request body',
  'exclusions.target.uri': 'the request URI',
  'exclusions.target.fileNamePath': 'the request path',
  'exclusions.target.queryString': 'the query string',
  'exclusions.form.title': 'Add exclusion',
  'exclusions.form.submit': 'Add exclusion',
  'exclusions.form.help':
    'The rule stops applying to what you name, where you name it. The narrower it is, the less protection it takes away.',
  'exclusions.form.ruleHelp': 'As the access log names it (waf_triggered_rules), such as 942100.',
  'exclusions.form.targetHelp':
    'Empty for the whole rule; else where it fired, as waf_triggered_targets names it: ARGS:q, REQUEST_HEADERS:Referer, REQUEST_COOKIES:session.',
  'exclusions.form.targetMeans': 'Excluded on: {words}.',
  'exclusions.form.pathLabel': 'Path',
  'exclusions.form.pathMeans': 'Applies on {words}.',
  'exclusions.form.preview':
    '{examined, plural, one {Of # stored request} other {Of # stored requests}} on which rule {id} fired {period}, {cleared} would have passed ({blocked} of them were blocked).',
  'exclusions.period.24h': 'in the last 24 hours',
  'exclusions.period.7d': 'in the last 7 days',
  'exclusions.period.30d': 'in the last 30 days',
  'detail.exclusion.collection':
    'must be a request collection (ARGS, REQUEST_HEADERS, REQUEST_COOKIES, ...), optionally followed by :name',
  'detail.exclusion.noName': 'has a colon but no name after it',
  'detail.exclusion.pathSlash': 'must start with / (or be empty for every path)',
  'detail.exclusion.pathStar': 'may hold * only at its end (a prefix)',

  'suggestions.title': 'Suggested exclusions',
  'suggestions.help':
    "Rules that kept firing on the same parameter of the same path, for many requests from several clients, in this site's stored access log: likely false positives. Nothing changes until you exclude one, after seeing what it would have let through.",
  'suggestions.period': 'Period',
  'suggestions.period.24h': 'Last 24 hours',
  'suggestions.period.7d': 'Last 7 days',
  'suggestions.period.30d': 'Last 30 days',
  'suggestions.look': 'Look for suggestions',
  'suggestions.looking': 'Reading stored requests…',
  'suggestions.notYet':
    'Choose a period and look for suggestions. Reading a long period of a busy site can take a few seconds.',
  'suggestions.over':
    'Read {examined, plural, one {# stored request} other {# stored requests}} on which a rule fired, from {from} to {to}.',
  'suggestions.partial':
    'The reading stopped early (time or record limit): the counts are of part of the period, and there may be more suggestions. Choose a shorter period to read it all.',
  'suggestions.empty.title': 'No suggestions in this period',
  'suggestions.empty.body':
    'No rule fired on the same parameter of the same path for at least {requests} requests from {clients} clients in this period. Look over a longer period, or open a blocked request on the search page and choose Create exception.',
  'suggestions.allExcluded.title': 'Every suggestion is excluded',
  'suggestions.allExcluded.body':
    "The exclusions made here are listed under Rule exclusions. Look again later to see what the site's traffic suggests next.",
  'suggestions.col.rule': 'Rule',
  'suggestions.col.target': 'Fired on',
  'suggestions.col.path': 'Path',
  'suggestions.col.requests': 'Requests',
  'suggestions.col.clients': 'Clients',
  'suggestions.col.probed': 'From probed browsers',
  'suggestions.col.lastSeen': 'Last seen',
  'suggestions.col.example': 'Example request',
  'suggestions.col.operations': 'Operations',
  'suggestions.probedShare': '{probed} ({percent}%)',
  'suggestions.exclude': 'Exclude…',
  'suggestions.excluded':
    'Exclusion of rule {id} added: it applies from the next request and is listed under Rule exclusions.',

  'groupRules.col.site': 'For this site',
  'groupRules.switchOff': 'Switch off for this site',
  'groupRules.switchOffAsk':
    'Switch rule {id} off for this site, on every path? Requests it would block pass. Say why, for whoever reads it later.',
  'groupRules.switchOffSubmit': 'Switch off',
  'groupRules.switchedOff': 'Switched off: {reason}',
  'groupRules.switchOn': 'Switch on',
  'groupRules.switchOnAsk': 'Switch rule {id} on again for this site? It applies from the next request.',
  'groupRules.switchOnSubmit': 'Switch on',
  'groupRules.switchedOffNow': 'Rule {id} switched off for this site. It is listed under Rule exclusions.',
  'groupRules.switchedOnNow': 'Rule {id} switched on again for this site.',

  'contentTypes.title': 'Allowed content types',
  'contentTypes.help':
    "Core Rule Set rule 920420 blocks a request whose Content-Type is not in this list. Rampart's default list adds what browsers and API clients send in ordinary use (beacons, CSP reports, gRPC-web, GraphQL, JSON variants) to the Core Rule Set's own.",
  'contentTypes.isDefault': "Rampart's default list",
  'contentTypes.isOwn': "This site's own list",
  'contentTypes.label': 'Content types, one per line',
  'contentTypes.lineHelp': 'A media type without parameters, such as application/json.',
  'contentTypes.save': 'Save list',
  'contentTypes.saved': 'The site now allows {count, plural, one {# content type} other {# content types}}.',
  'contentTypes.restore': 'Restore the default',
  'contentTypes.restoreTitle': 'Restore the default list',
  'contentTypes.restoreBody':
    "Replace this site's list by Rampart's default list of {count, plural, one {# content type} other {# content types}}? The site's own list is not kept.",
  'contentTypes.restoreSubmit': 'Restore the default',
  'contentTypes.restored': "The site allows Rampart's default list of content types again.",
  'contentTypes.emptyList': 'Type at least one content type, or restore the default list.',
  'contentTypes.badLine':
    'Line {line}: “{value}” is not a media type such as application/json (leave out parameters such as ;charset=).',

  'secondOpinion.title': 'Second opinion',
  'secondOpinion.help':
    'Off by default. When on, a request the anomaly score would block because of rules of level 2 or above is looked at again before it is blocked, and its access record says what was weighed (waf_second_opinion).',
  'secondOpinion.label': 'Second opinion on blocks',
  'secondOpinion.offLabel': 'Off',
  'secondOpinion.onLabel': 'On',
  'secondOpinion.signals':
    "What it weighs: an SQL injection or XSS rule of level 2 or above counts only when Rampart's SQL or HTML tokenizer finds SQL or script in the value it matched; a client that passed the browser probe takes up to 3 points off the other level 2+ rules; each block of the client in the last hour adds 2 (at most 6), and a client the probe found to be automation adds 3. Rules of level 1 always count in full.",
  'secondOpinion.on': 'Second opinion on: borderline blocks of this site are looked at again.',
  'secondOpinion.off': 'Second opinion off: the anomaly score alone decides.',

  'exception.action': 'Create exception',
  'exception.title': 'Create exception',
  'exception.loading': 'Reading the rules that fired on this request…',
  'exception.empty':
    'Nothing to propose: the rules that fired on this request are already excluded here, or none of them is a rule that can be excluded.',
  'exception.request': 'Request:',
  'exception.help':
    'These exclusions would have let this request through. Choose which to create and where each applies, then say why.',
  'exception.several':
    'Several rules fired on this request: a request passes only when every rule that fired on it is excluded, so each count below is of requests on which that rule alone (with the exclusions the site has) stood in the way.',
  'exception.rule': 'Rule {id}',
  'exception.on': 'Excluded on:',
  'exception.counting': 'Counting stored requests…',
  'exception.preview':
    '{examined, plural, one {Of # stored request} other {Of # stored requests}} on which rule {id} fired in the last 7 days, {cleared} would have passed ({blocked} of them were blocked).',
  'exception.partial': 'The count stopped early (time or record limit): there may be more.',
  'exception.submit': '{count, plural, =0 {Create exception} one {Create exception} other {Create # exceptions}}',
  'exception.noneChosen': 'Choose at least one exclusion to create.',
  'exception.savedOne': 'Created, on {path}.',
  'exception.created':
    '{count, plural, one {# exception created for {site}: it applies} other {# exceptions created for {site}: they apply}} from the next request.',
  'exception.toRules': "See the site's basic rules",
  'exception.done': 'Done',
} as const;
