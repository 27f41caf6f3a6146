import { describe, expect, it } from 'vitest';
import { isRampartError } from '#engine/shared';
import { accessLogFields, createIntel } from '#engine/intel';
import { LOAD_TIMEOUT } from './fixture.ts';

describe('createIntel', () => {
  it('rejects a city database path that does not exist, naming the setting', async () => {
    const failure: unknown = await createIntel({ cityDb: ['/nonexistent/city.mmdb'] }).catch((e: unknown) => e);
    expect(isRampartError(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'SETTINGS_INVALID', field: 'RAMPART_INTEL_CITY_DB' });
  });

  it('rejects a file that is not an MMDB database', async () => {
    const failure: unknown = await createIntel({ countryDb: 'package.json' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'SETTINGS_INVALID', field: 'RAMPART_INTEL_COUNTRY_DB' });
  });

  it('rejects a cache size that is not a positive integer', async () => {
    await expect(createIntel({ uaCacheSize: 0 })).rejects.toMatchObject({ code: 'SETTINGS_INVALID' });
  });

  it(
    'keeps both caches within their bounds',
    async () => {
      const intel = await createIntel({ uaCacheSize: 3, ipCacheSize: 2 });
      for (let i = 0; i < 50; i++) intel.lookup(`8.8.${i}.8`, `curl/${i}.0`);
      expect(intel.cacheSizes()).toEqual({ userAgents: 3, addresses: 2 });
    },
    LOAD_TIMEOUT,
  );

  it(
    'returns the same answer from the cache as on first sight',
    async () => {
      const intel = await createIntel({ uaCacheSize: 1 });
      const first = intel.lookup('8.8.8.8', 'Wget/1.21.4');
      intel.lookup('1.1.1.1', 'curl/8.4.0'); // evicts Wget
      expect(intel.lookup('8.8.8.8', 'Wget/1.21.4')).toEqual(first);
      expect(intel.lookup('8.8.8.8', 'Wget/1.21.4')).toEqual(first);
    },
    LOAD_TIMEOUT,
  );
});

describe('accessLogFields', () => {
  it(
    'gives the spec 2.3 fields flat and the whole result as _intelligence_result',
    async () => {
      const intel = await createIntel();
      const result = intel.lookup(
        '10.0.0.1',
        'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      );
      expect(accessLogFields(result)).toEqual({
        ip_city: '',
        ip_classification: 'private',
        ip_data_center_name: '',
        ua_classification: 'search_engine',
        ua_family: 'Googlebot',
        ua_os: '',
        ua_version_major: '2',
        _intelligence_result: result,
      });
      expect(JSON.parse(JSON.stringify(accessLogFields(result)._intelligence_result))).toMatchObject({
        intel: { ip_classification: 'private', bot_type: 'search_engine', bot_name: 'Googlebot' },
      });
    },
    LOAD_TIMEOUT,
  );
});
