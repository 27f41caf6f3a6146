/**
 * Engine configuration: the defaults (DEFAULT_CONFIG) and the Sec* directives that change them
 * (SecRuleEngine, SecRequestBodyAccess, limits, SecArgumentSeparator, ...). The exclusion
 * directives are exclusions.ts's.
 */
import type { Directive } from '../types.ts';
import type { EngineConfig } from './rule.ts';

export const DEFAULT_CONFIG: EngineConfig = {
  ruleEngine: 'On',
  requestBodyAccess: true,
  responseBodyAccess: true,
  requestBodyLimit: 128 * 1024,
  requestBodyLimitAction: 'Reject',
  responseBodyLimit: 512 * 1024,
  responseBodyMimeTypes: ['text/plain', 'text/html', 'text/xml'],
  argumentSeparator: '&',
  argumentsLimit: 1000,
};

/** Applies one configuration directive; those without effect on decisions here are ignored. */
export function applyConfig(d: Directive & { kind: 'config' }, config: EngineConfig): void {
  const name = d.name.toLowerCase();
  const a0 = d.args[0] ?? '';
  const onOff = /^on$/i.test(a0);
  switch (name) {
    case 'secruleengine':
      config.ruleEngine = /^on$/i.test(a0) ? 'On' : /^off$/i.test(a0) ? 'Off' : 'DetectionOnly';
      break;
    case 'secrequestbodyaccess':
      config.requestBodyAccess = onOff;
      break;
    case 'secresponsebodyaccess':
      config.responseBodyAccess = onOff;
      break;
    case 'secrequestbodylimit':
      config.requestBodyLimit = Number(a0) || config.requestBodyLimit;
      break;
    case 'secrequestbodylimitaction':
      config.requestBodyLimitAction = /^reject$/i.test(a0) ? 'Reject' : 'ProcessPartial';
      break;
    case 'secresponsebodylimit':
      config.responseBodyLimit = Number(a0) || config.responseBodyLimit;
      break;
    case 'secresponsebodymimetype':
      config.responseBodyMimeTypes = d.args.flatMap((x) => x.split(/\s+/)).filter(Boolean);
      break;
    case 'secargumentseparator':
      config.argumentSeparator = a0 || '&';
      break;
    case 'secargumentslimit':
      config.argumentsLimit = Number(a0) || config.argumentsLimit;
      break;
    default:
      // Other configuration (audit log, debug log, PCRE limits, collection timeouts, ...) has no
      // effect on decisions here.
      break;
  }
}
