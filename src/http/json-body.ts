/**
 * Request bodies are JSON in UTF-8 (RFC 8259 §8.1). Fastify's own parser decodes the bytes
 * leniently, turning invalid UTF-8 into U+FFFD; here the bytes are decoded strictly first, so
 * a body that is not UTF-8 is a 400 INVALID_JSON saying so, and the text then goes to
 * Fastify's parser (with its prototype-poisoning protection) unchanged.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body as Buffer);
    } catch {
      done(new AppError('INVALID_JSON', 'The request body is not valid UTF-8.'), undefined);
      return;
    }
    parse(request, text, done);
  });
}
