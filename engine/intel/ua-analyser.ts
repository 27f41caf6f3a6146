// User-agent analysis: ua-parser-js 1.x (MIT; 2.x is AGPL and must not be used) for browser, OS
// and device, our bot classifier for automated clients. The result is frozen and shared: the
// cache hands the same object to every request with the same user agent.
import { createRequire } from 'node:module';
import type { CrawlerType } from '#engine/shared';
import type { BotClassifier } from './bot-classifier.ts';

/**
 * Closed set. Bots carry their bot type; browsers their device class as ua-parser-js sees it
 * ('desktop' when a known browser names no device); 'other_device' covers consoles, TVs, wearables
 * and embedded devices; 'unknown' is a non-empty agent nothing recognised; 'empty' no agent at all.
 */
export const UA_CLASSIFICATIONS = [
  'scanner',
  'script_tool',
  'search_engine',
  'other_crawler',
  'desktop',
  'mobile',
  'tablet',
  'other_device',
  'unknown',
  'empty',
] as const;
export type UaClassification = (typeof UA_CLASSIFICATIONS)[number];

export interface UaIntel {
  readonly classification: UaClassification;
  readonly family: string;
  readonly os: string;
  readonly versionMajor: string;
  readonly botType: CrawlerType | null;
  readonly botName: string;
}

interface UaParserResult {
  browser: { name?: string; major?: string };
  os: { name?: string };
  device: { type?: string };
}
type UaParse = (ua: string) => UaParserResult;

const parseUa = createRequire(import.meta.url)('ua-parser-js') as UaParse;

export const EMPTY_UA: UaIntel = Object.freeze({
  classification: 'empty',
  family: '',
  os: '',
  versionMajor: '',
  botType: null,
  botName: '',
});

export function analyseUserAgent(ua: string, bots: BotClassifier): UaIntel {
  if (ua.trim() === '') return EMPTY_UA;
  const parsed = parseUa(ua);
  const os = parsed.os.name ?? '';
  const bot = bots.classify(ua);
  if (bot !== null) {
    return Object.freeze({
      classification: bot.type,
      family: bot.name,
      os,
      versionMajor: bot.versionMajor,
      botType: bot.type,
      botName: bot.name,
    });
  }
  const family = parsed.browser.name ?? '';
  return Object.freeze({
    classification: deviceClass(parsed.device.type, family),
    family,
    os,
    versionMajor: parsed.browser.major ?? '',
    botType: null,
    botName: '',
  });
}

function deviceClass(type: string | undefined, family: string): UaClassification {
  switch (type) {
    case 'mobile':
      return 'mobile';
    case 'tablet':
      return 'tablet';
    case undefined:
      return family === '' ? 'unknown' : 'desktop';
    default:
      return 'other_device';
  }
}
