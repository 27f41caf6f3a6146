import { describe, expect, it } from 'vitest';
import { copyName } from '#engine/shared';

describe('copyName', () => {
  it('takes the first free "copy" name, comparing names without case or surrounding spaces', () => {
    expect(copyName('Login', ['Login'])).toBe('Login copy');
    expect(copyName('Login', ['Login', ' login COPY ', 'Login copy 2'])).toBe('Login copy 3');
  });

  it('cuts the original so that the name with its suffix fits', () => {
    const long = 'x'.repeat(64);
    expect(copyName(long, [long], 64)).toBe(`${'x'.repeat(59)} copy`);
    expect(copyName(long, [long, `${'x'.repeat(59)} copy`], 64)).toBe(`${'x'.repeat(57)} copy 2`);
  });

  it('takes another form of suffix', () => {
    const site = (n: number) => (n === 1 ? ' (copy)' : ` (copy ${n})`);
    expect(copyName('Shop', ['Shop', 'Shop (copy)'], Number.POSITIVE_INFINITY, site)).toBe('Shop (copy 2)');
  });
});
