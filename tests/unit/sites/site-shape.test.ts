import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { siteInputSchema, siteSettingsView, type SiteSettings } from '#engine/shared';

/** The field names of an object (and of its nested objects), as dotted paths. */
function fieldsOf(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value)
    .flatMap(([key, item]) => fieldsOf(item, prefix ? `${prefix}.${key}` : key))
    .sort();
}

/** The field names a zod object schema declares, nested objects included. */
function declared(schema: z.ZodType, prefix = ''): string[] {
  const def = (schema as unknown as { def: { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType } })
    .def;
  if (def.type === 'default' || def.type === 'pipe') return declared(def.innerType ?? schema, prefix);
  if (def.type !== 'object' || !def.shape) return [prefix];
  return Object.entries(def.shape)
    .flatMap(([key, item]) => declared(item, prefix ? `${prefix}.${key}` : key))
    .sort();
}

describe('the site shape', () => {
  const settings: SiteSettings = siteInputSchema.parse({ name: 'Shop', domain: 'shop.example.com' });

  it('gives out, for a new site, exactly the fields the site view declares', () => {
    expect(fieldsOf(settings)).toEqual(declared(siteSettingsView));
  });

  it('gives out settings the site view accepts as they are', () => {
    expect(siteSettingsView.parse(settings)).toEqual(settings);
  });

  it('types the settings and the view alike', () => {
    // Compile-time: each is assignable to the other (npx tsc fails if a field drifts).
    const asView: z.infer<typeof siteSettingsView> = settings;
    const back: SiteSettings = asView;
    expect(back).toBe(settings);
  });
});
