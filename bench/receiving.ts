/**
 * Received documents per second one instance takes in (README "Received documents"): suppliers'
 * EnvioDTEs uploaded through `POST /api/{rut}/recibidos`, each checked as the receiver must
 * (XSD, the envelope's and each DTE's signature, RUTs, duplicates, the TED), stored byte-exact
 * and answered with a signed RespuestaDTE. Two shapes: envelopes of 1 DTE and of 10 DTEs (10-line
 * facturas). The supplier is the bench's demo issuer (BENCH_ISSUER) with a throwaway
 * certificate and a CAF signed by a stand-in SII key the server trusts (TIMBRE_EXTRA_CAF_KEYS);
 * the envelopes are built and signed before the clock starts, so only the receiving is timed.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { Agent } from 'node:http';
import { generateCaf, parseCaf } from '../src/dte/caf.ts';
import { generateTestCertificate, parsePkcs12 } from '../src/dte/certificate.ts';
import { buildDteXml } from '../src/dte/dte-xml.ts';
import { buildEnvelope } from '../src/dte/envelope.ts';
import { issueRequestSchema } from '../src/dte/issue-request.ts';
import { buildTed } from '../src/dte/ted.ts';
import { computeDocument } from '../src/dte/totals.ts';
import { encodeLatin1, signDte, withXmlDeclaration } from '../src/dte/xmldsig.ts';
import { BENCH_ISSUER } from './fixtures.ts';
import { percentile, post, tenLineFactura } from './harness.ts';

const SENDER_RUT = '13185095-6';

/** The stand-in supplier: its certificate, its CAF, and the SII key (SPKI PEM) that signed the CAF. */
export function benchSupplier() {
  const sii = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const caf = parseCaf(
    generateCaf({
      rut: BENCH_ISSUER.rut,
      name: 'DEMO',
      type: 33,
      from: 1,
      to: 1_000_000,
      authorisedAt: '2026-01-01',
      signerKey: sii.privateKey,
      idk: 100,
    }),
  );
  const { p12, password } = generateTestCertificate({ holderRut: SENDER_RUT, name: 'Proveedor Bench' });
  return {
    siiPublicKeyPem: sii.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    cert: parsePkcs12(p12, password),
    caf,
    cafKey: createPrivateKey(caf.privateKeyPem),
  };
}

type BenchSupplier = ReturnType<typeof benchSupplier>;

/** `count` signed EnvioDTEs of `perEnvelope` 10-line facturas each, to `receiverRut`, folios from `firstFolio`. */
export function buildEnvelopes(
  s: BenchSupplier,
  receiverRut: string,
  count: number,
  perEnvelope: number,
  firstFolio: number,
): Buffer[] {
  const base = tenLineFactura();
  const req = issueRequestSchema.parse({ ...base, receiver: { ...base.receiver, rut: receiverRut } });
  const out: Buffer[] = [];
  let folio = firstFolio;
  for (let e = 0; e < count; e++) {
    const dtes = Array.from({ length: perEnvelope }, () => {
      const doc = computeDocument(req, { issuer: BENCH_ISSUER, folio: folio++, date: '2026-11-20' });
      const ted = buildTed({ doc, caf: s.caf, cafPrivateKey: s.cafKey, timestamp: '2026-11-20T10:15:00' });
      const { xml, documentId } = buildDteXml(doc, { ted, timestamp: '2026-11-20T10:15:01' });
      return { type: 33, signedXml: encodeLatin1(withXmlDeclaration(signDte(xml, documentId, s.cert))) };
    });
    out.push(
      buildEnvelope(
        'dte',
        dtes,
        {
          issuerRut: BENCH_ISSUER.rut,
          senderRut: SENDER_RUT,
          receiverRut,
          resolutionDate: BENCH_ISSUER.resolutionDate,
          resolutionNumber: BENCH_ISSUER.resolutionNumber,
          timestamp: '2026-11-20T10:16:00',
        },
        s.cert,
      ),
    );
  }
  return out;
}

export interface ReceivingMeasure {
  perEnvelope: number;
  envelopes: number;
  concurrency: number;
  documentsPerSecond: number;
  envelopesPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
  firstFailure: string | undefined;
}

/** Uploads `envelopes` over `concurrency` keep-alive connections; every answer must accept all its DTEs. */
export async function uploadEnvelopes(
  port: number,
  key: string,
  rut: string,
  envelopes: Buffer[],
  perEnvelope: number,
  concurrency: number,
): Promise<ReceivingMeasure> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= envelopes.length) return;
        const body = envelopes[i]!;
        const headers = {
          authorization: `Bearer ${key}`,
          'content-type': 'application/xml',
          'content-length': String(body.length),
        };
        const s = performance.now();
        const res = await post(agent, port, `/api/${rut}/recibidos`, headers, body);
        latencies.push(performance.now() - s);
        const json = JSON.parse(res.text) as {
          accepted?: boolean;
          received?: unknown[];
          reason?: string;
          code?: string;
        };
        if (res.status !== 200 || !json.accepted || json.received?.length !== perEnvelope) {
          failures++;
          // A refused file is fast and would flatter the figures: say why, once per run.
          firstFailure ??= `${res.status} ${json.code ?? ''} ${json.reason ?? ''}`.trim();
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    perEnvelope,
    envelopes: envelopes.length,
    concurrency,
    documentsPerSecond: (envelopes.length * perEnvelope) / seconds,
    envelopesPerSecond: envelopes.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
    firstFailure,
  };
}

export function receivingSection(measures: ReceivingMeasure[], day: string, load: string): string {
  const rows = measures.map(
    (m) =>
      `| ${m.perEnvelope} | ${m.envelopes} | ${m.concurrency} | **${m.documentsPerSecond.toFixed(1)}** | ${m.envelopesPerSecond.toFixed(1)} | ${m.p50.toFixed(0)} | ${m.p99.toFixed(0)} | ${m.failures}${m.firstFailure ? ` (${m.firstFailure})` : ''} |`,
  );
  return `## Receiving suppliers' documents

Measured on ${day}; load average ${load}. One instance takes in suppliers' EnvioDTEs through \`POST /api/{rut}/recibidos\` (raw XML), each checked as the receiver must (XSD, envelope and DTE signatures, RUTs, duplicates, TED with its CAF), stored byte-exact with its checks and answered with a signed RespuestaDTE, in one transaction per envelope. 10-line facturas from a stand-in supplier; envelopes built and signed before timing.

| DTEs per envelope | envelopes | connections | received documents / s | envelopes / s | p50 ms | p99 ms | failures |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
}
