/**
 * Small HTTP helpers of the SII simulator (node:http, no framework: the simulator must answer
 * byte shapes the SII answers, including odd ones such as plain text under a JSON content
 * type). Handlers build a `Reply`; the server writes it, or withholds it when a fault says so.
 */
import type { IncomingMessage } from 'node:http';
import { normalizeRut } from '../dte/rut.ts';

/** The largest request body the simulator reads (an EnvioDTE of 2000 documents fits). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export class BodyTooLargeError extends Error {}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Reads the whole request body; refuses bodies above `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new BodyTooLargeError(`request body above ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** A cookie of the request (`Cookie: TOKEN=…; other=…`), undefined when absent. */
export function cookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    if (pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/** True when the request declared its length: the SII's upload gateway needs it (docs/sii-reference.md §7.3). */
export function hasContentLength(req: IncomingMessage): boolean {
  return req.headers['content-length'] !== undefined && req.headers['transfer-encoding'] === undefined;
}

/** The media type of the request without parameters, lower-cased ('' when absent). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** True when the User-Agent carries `PROG 1.0`, which the SII's upload gateways demand (docs/sii-reference.md §7.3). */
export function hasProgUserAgent(req: IncomingMessage): boolean {
  return (req.headers['user-agent'] ?? '').includes('PROG 1.0');
}

export function reply(
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
): Reply {
  const latin1 = /iso-8859-1/i.test(contentType);
  const bytes = typeof body === 'string' ? Buffer.from(body, latin1 ? 'latin1' : 'utf8') : body;
  return { status, headers: { 'Content-Type': contentType, ...headers }, body: bytes };
}

export function jsonReply(status: number, value: unknown): Reply {
  return reply(status, JSON.stringify(value), 'application/json;charset=UTF-8');
}

export function textReply(status: number, text: string, headers: Record<string, string> = {}): Reply {
  return reply(status, text, 'text/plain;charset=UTF-8', headers);
}

export function xmlReply(status: number, xml: string): Reply {
  return reply(status, xml, 'text/xml; charset=utf-8');
}

/** A minimal HTML page, the way the SII's CGI programs and gateways answer errors. */
export function htmlReply(status: number, title: string, message: string, headers: Record<string, string> = {}): Reply {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const page = `<html><head><title>${esc(title)}</title></head><body><h2>${esc(title)}</h2><p>${esc(message)}</p></body></html>\n`;
  return reply(status, page, 'text/html; charset=ISO-8859-1', headers);
}

/**
 * A RUT from the two fields the SII's services split it into, canonical, or null. Leading
 * zeros and thousands dots are tolerated: the SII's own samples echo `07880442-4`.
 */
export function parseRut(body: string, dv: string): string | null {
  return normalizeRut(`${body.trim().replace(/\./g, '').replace(/^0+/, '')}-${dv.trim()}`);
}
