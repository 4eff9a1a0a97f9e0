/**
 * Connection hygiene (README "Hostile input and abuse"), on a listening server with small configured limits: a client
 * that sends its headers or its body too slowly is cut off, and connections beyond the cap are
 * closed at once. Conditions are awaited with a deadline, never slept on.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestIssuer, createTestKey, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let port: number;
let rut: string;
let key: string;

beforeAll(async () => {
  t = await buildTestApp({
    env: { HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600', KEEP_ALIVE_TIMEOUT_MS: '300', MAX_CONNECTIONS: '4' },
  });
  rut = (await createTestIssuer(t.ctx)).rut;
  key = await createTestKey(t.ctx, rut, 'owner');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  await t.close();
});

interface Connection {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

function open(): Promise<Connection> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

/** Resolves when the connection is closed by the server, or fails after `ms`. */
async function closedWithin(c: Connection, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([c.closed, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('slow clients are cut off', () => {
  it('headers that never finish', async () => {
    const c = await open();
    c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    // Keep trickling header bytes: the header timer still runs out.
    const trickle = setInterval(() => c.socket.write('X-A: b\r\n'), 50);
    try {
      await closedWithin(c, 10_000);
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).not.toContain('200 OK');
  });

  it('a body that arrives too slowly gets a 408 and the connection closes', async () => {
    const c = await open();
    c.socket.write(
      `POST /api/${rut}/emitir HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const trickle = setInterval(() => c.socket.write(' '), 50);
    try {
      await closedWithin(c, 10_000);
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('an idle keep-alive connection is closed', async () => {
    const c = await open();
    c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await closedWithin(c, 10_000);
    expect(c.received()).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe('open connections are capped', () => {
  it('beyond MAX_CONNECTIONS a new connection is closed at once; a freed slot is usable again', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => open()));
    const extra = await open();
    await closedWithin(extra, 5_000);
    expect(extra.received()).toBe('');
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
  });
});
