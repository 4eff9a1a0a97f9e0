/**
 * OpenAPI 3.1, generated from the same zod schemas the routes validate with, served at
 * `/openapi.json`, with a browsable page at `/docs` (swagger-ui assets ship in the npm package:
 * nothing is fetched from the internet). Every error code of the catalog is documented in the
 * error schema and in the `x-error-codes` table.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { ERROR_CATALOG } from '../errors.ts';

export function errorCodeTable() {
  return Object.entries(ERROR_CATALOG).map(([code, v]) => ({ code, status: v.status, message: v.message }));
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const codes = errorCodeTable();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Timbre API',
        version: '1.0.0',
        description: [
          'Issue Chilean electronic tax documents (DTE) to the SII with JSON.',
          '',
          'Every error is `{ ok: false, error, code, request_id, details? }`. Error codes:',
          '',
          '| code | HTTP | meaning |',
          '|---|---|---|',
          ...codes.map((c) => `| \`${c.code}\` | ${c.status} | ${c.message} |`),
        ].join('\n'),
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer timbre_…' },
        },
      },
      security: [{ apiKey: [] }],
      'x-error-codes': codes,
    } as never,
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
}
