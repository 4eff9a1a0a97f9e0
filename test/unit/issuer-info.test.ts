/**
 * The issuer block every document is built from (issuerInfo, src/issuing/issue-document.ts). A
 * sandbox issuer has no SII resolution, so its stamp is dated the day it was created: that day
 * is Santiago's, as every other date on the document is, not UTC's.
 */
import { describe, expect, it } from 'vitest';
import type { Issuer } from '../../src/generated/prisma/client.ts';
import { issuerInfo } from '../../src/issuing/issue-document.ts';

function issuer(fields: Partial<Issuer>): Issuer {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    accountId: '00000000-0000-4000-8000-000000000002',
    rut: '76086428-5',
    name: 'Demo SpA',
    giro: 'Servicios informáticos',
    acteco: ['620200'],
    address: 'Av. Apoquindo 1234',
    comuna: 'Las Condes',
    city: 'Santiago',
    siiAmbiente: 0,
    vatRate: 19,
    resolutionDate: null,
    resolutionNumber: null,
    active: true,
    createdAt: new Date('2026-06-01T12:00:00Z'),
    updatedAt: new Date('2026-06-01T12:00:00Z'),
    siiOffice: null,
    folioAlerts: {},
    ...fields,
  };
}

describe('issuer information on a document', () => {
  it('dates a sandbox issuer\'s "Res. 0" with the Santiago day it was created, on New Year\'s Eve too', () => {
    // 22:30 on 31 December in Santiago (summer time, UTC-3) is already 1 January in UTC: the
    // printed resolution year must stay 2026.
    const info = issuerInfo(issuer({ createdAt: new Date('2027-01-01T01:30:00Z') }));
    expect(info.resolutionDate).toBe('2026-12-31');
    expect(info.resolutionNumber).toBe(0);
  });

  it("keeps a live issuer's resolution date and number as registered", () => {
    const info = issuerInfo(
      issuer({
        resolutionDate: new Date('2014-08-22T00:00:00Z'),
        resolutionNumber: 80,
        createdAt: new Date('2027-01-01T01:30:00Z'),
      }),
    );
    expect(info.resolutionDate).toBe('2014-08-22');
    expect(info.resolutionNumber).toBe(80);
  });
});
