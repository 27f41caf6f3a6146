import { z } from 'zod';
import type { AnyRoute } from './route.ts';
import { STATUS_OF } from './http-errors.ts';

type JsonObject = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonObject =>
  z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' });

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
        params: { type: 'object', additionalProperties: true },
      },
    },
  },
};

/** The OpenAPI 3.0 document, generated from the route declarations and nothing else. */
export function buildOpenApi(routes: readonly AnyRoute[], version: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const path = '/api/v1' + route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const parameters: JsonObject[] = [];
    for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
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
      [status]: route.produces === 'download'
        ? { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }
        : route.response
        ? { description: 'Success', content: { 'application/json': { schema: toSchema(route.response, 'output') } } }
        : { description: 'Success, no content' },
      default: { description: 'Error', content: { 'application/json': { schema: errorBody } } },
    };
    const access = route.access === 'public' ? 'public' : route.access === 'signedIn' ? 'any signed-in role' : route.access.join(', ');
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      description: `Access: ${access}${route.module ? `; licensed module: ${route.module}` : ''}.`,
      parameters,
      responses,
      ...(route.access === 'public' ? { security: [] } : {}),
    };
    if (route.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: toSchema(route.body, 'input') } } };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  paths['/api/v1/openapi.json'] = {
    get: { operationId: 'getOpenApi', summary: 'This document', tags: ['system'], security: [], responses: { 200: { description: 'OpenAPI document' } } },
  };
  return {
    openapi: '3.0.3',
    info: { title: 'Rampart console API', version },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'rampart_session', description: 'Writes also need the X-CSRF-Token header' },
      },
    },
    security: [{ session: [] }],
    paths,
  };
}
