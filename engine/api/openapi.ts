import { z } from 'zod';
import type { Edition } from '#engine/shared';
import type { Contract } from './contracts/index.ts';
import { STATUS_OF } from './http-errors.ts';

type JsonObject = Record<string, unknown>;

/** Points every `#/definitions/X` reference of a converted schema at `#/components/schemas/X`. */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof item === 'string'
        ? item.replace(/^#\/definitions\//, '#/components/schemas/')
        : relink(item);
  }
  return out;
}

/**
 * Converts zod schemas to OpenAPI 3.0 schemas. Schemas zod lifts into `definitions` (recursive
 * ones, and those named with `.meta({ id })`) become named components, so every `$ref` resolves
 * in the document; an unnamed recursive schema is a programming error, named at start-up.
 */
class SchemaConverter {
  readonly components: Record<string, JsonObject> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
    const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonObject;
    const { definitions, $schema: _dialect, ...rest } = json;
    for (const [name, definition] of Object.entries((definitions ?? {}) as Record<string, JsonObject>)) {
      if (name.startsWith('__')) {
        throw new Error(
          `A recursive schema needs a name for the OpenAPI document: give it .meta({ id: '...' }) (${JSON.stringify(definition).slice(0, 120)})`,
        );
      }
      const linked = relink(definition) as JsonObject;
      const known = this.components[name];
      if (known && JSON.stringify(known) !== JSON.stringify(linked)) {
        throw new Error(`Two different schemas are named ${name} in the OpenAPI document`);
      }
      this.components[name] = linked;
    }
    return relink(rest) as JsonObject;
  }
}

const errorBody: JsonObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(STATUS_OF) },
        message: { type: 'string' },
        field: { type: 'string' },
        params: {
          type: 'object',
          additionalProperties: true,
          description:
            "What the message needs, never prose; for refused input, zod's issue code and bounds (code, maximum, minimum, origin, format, expected, values, keys)",
        },
        problems: {
          type: 'array',
          description: 'Every bad field when there are several; the first is also field and message',
          items: {
            type: 'object',
            required: ['field', 'message'],
            properties: {
              field: { type: 'string' },
              message: { type: 'string' },
              params: { type: 'object', additionalProperties: true },
            },
          },
        },
      },
    },
  },
};

const errorResponse = (description: string): JsonObject => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** The error answers a route can give by its declaration alone (input, sign-in, role, module, path). */
function errorResponses(route: Contract): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  if (route.params || route.query || route.body)
    out['400'] = errorResponse('Invalid input: field names the offending field');
  if (route.access !== 'public') out['401'] = errorResponse('Not signed in, or the session expired');
  if (route.access !== 'public' || route.module) {
    out['403'] = errorResponse('FORBIDDEN_ROLE, MODULE_NOT_ACTIVE or CSRF_INVALID');
  }
  if (route.params) out['404'] = errorResponse('No such object');
  return out;
}

/** Field names the body must have in this edition, over what its schema requires everywhere. */
function requireFields(schema: JsonObject, fields: readonly string[]): JsonObject {
  if (fields.length === 0) return schema;
  const required = new Set([...((schema.required as string[] | undefined) ?? []), ...fields]);
  return { ...schema, required: [...required] };
}

/**
 * The OpenAPI 3.0 document of one edition, generated from the operations' contracts and nothing else.
 * Each operation carries `x-rampart-access` (`public`, `signedIn` or the roles that may call it) and,
 * when it needs one, `x-rampart-module`: the security run checks answers against them.
 */
export function buildOpenApi(contracts: readonly Contract[], version: string, edition: Edition): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const schemas = new SchemaConverter();
  const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonObject => schemas.convert(schema, io);
  for (const route of contracts) {
    const path = '/api/v1' + route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const parameters: JsonObject[] = [];
    for (const [where, schema] of [
      ['path', route.params],
      ['query', route.query],
    ] as const) {
      if (!schema) continue;
      const json = toSchema(schema, 'input');
      const props = (json.properties ?? {}) as Record<string, JsonObject>;
      const required = new Set((json.required as string[] | undefined) ?? []);
      for (const [name, prop] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: prop });
      }
    }
    const status = route.status ?? 200;
    const responses: Record<string, JsonObject> = {
      [status]:
        route.produces === 'download'
          ? {
              description: 'The file',
              content: Object.fromEntries(
                [route.downloadType ?? 'application/octet-stream']
                  .flat()
                  .map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
              ),
            }
          : route.produces === 'events'
            ? {
                description: 'A stream of server-sent events',
                content: { 'text/event-stream': { schema: { type: 'string' } } },
              }
            : route.response
              ? {
                  description: 'Success',
                  content: { 'application/json': { schema: toSchema(route.response, 'output') } },
                }
              : { description: 'Success, no content' },
      ...errorResponses(route),
      default: errorResponse('Any other error (409 conflict, 413, 429 RATE_LIMITED with Retry-After...)'),
    };
    const access =
      route.access === 'public'
        ? 'public'
        : route.access === 'signedIn'
          ? 'any signed-in role'
          : route.access.join(', ');
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      description: `Access: ${access}${route.module ? `; licensed module: ${route.module}` : ''}.`,
      parameters,
      responses,
      ...(route.access === 'public' ? { security: [] } : {}),
      'x-rampart-access': route.access,
      ...(route.module ? { 'x-rampart-module': route.module } : {}),
    };
    if (route.body) {
      const schema = requireFields(toSchema(route.body, 'input'), route.requiredInEdition?.[edition] ?? []);
      operation.requestBody = { required: route.bodyOptional !== true, content: { 'application/json': { schema } } };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  paths['/api/v1/openapi.json'] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['system'],
      description: 'Access: public.',
      security: [],
      'x-rampart-access': 'public',
      responses: {
        200: { description: 'OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  };
  return {
    openapi: '3.0.3',
    info: { title: 'Rampart console API', version, license: { name: 'Proprietary' } },
    servers: [{ url: '/' }],
    components: {
      schemas: { ...schemas.components, Error: errorBody },
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'rampart_session',
          description: 'Writes also need the X-CSRF-Token header',
        },
      },
    },
    security: [{ session: [] }],
    paths,
  };
}
