/**
 * The simulator's fault board on its own: which requests a fault applies to, how `count` is
 * used up, `companyRut`, which keeps one issuer's fault from being used up by another
 * issuer's upload on a shared simulator, and `operations`, which keeps a fault for one SOAP call
 * from being used up by another call on the same path (a background job's).
 */
import { describe, expect, it } from 'vitest';
import { FaultBoard, soapOperationOf } from '../../src/sii-simulator/faults.ts';

const DTE_UPLOAD = '/cgi_dte/UPL/DTEUpload';
const CR_SEED = '/DTEWS/CrSeed.jws';
const REGISTRY = '/WSREGISTRORECLAMODTE/registroreclamodteservice';
const OURS = '76177907-9';
const OTHER = '96790240-3';

describe('FaultBoard', () => {
  it('applies a fault to `count` matching requests, then forgets it', () => {
    const board = new FaultBoard();
    board.add({ kind: 'http500', count: 2, paths: [DTE_UPLOAD] });
    expect(board.take({ pathname: CR_SEED })).toBeNull();
    expect(board.take({ pathname: DTE_UPLOAD })?.kind).toBe('http500');
    expect(board.list()).toEqual([{ kind: 'http500', count: 1, paths: [DTE_UPLOAD] }]);
    expect(board.take({ pathname: DTE_UPLOAD })?.kind).toBe('http500');
    expect(board.take({ pathname: DTE_UPLOAD })).toBeNull();
    expect(board.list()).toEqual([]);
  });

  it('never touches the control API; timeout-after-receipt defaults to the uploads, other kinds to every path', () => {
    const board = new FaultBoard();
    board.add({ kind: 'timeout-after-receipt' });
    board.add({ kind: 'down' });
    expect(board.take({ pathname: '/sim/faults' })).toBeNull();
    expect(board.take({ pathname: DTE_UPLOAD })?.kind).toBe('timeout-after-receipt');
    expect(board.take({ pathname: CR_SEED })?.kind).toBe('down');
    expect(board.take({ pathname: '/recursos/v1/boleta.electronica.envio' })?.kind).toBe('timeout-after-receipt');
  });

  it('companyRut: only that company’s uploads use the fault up; another company’s pass untouched', () => {
    const board = new FaultBoard();
    board.add({ kind: 'timeout-after-receipt', count: 1, paths: [DTE_UPLOAD], companyRut: OURS });
    expect(board.take({ pathname: DTE_UPLOAD, companyRut: OTHER })).toBeNull();
    expect(board.take({ pathname: DTE_UPLOAD })).toBeNull();
    expect(board.list()).toEqual([{ kind: 'timeout-after-receipt', count: 1, paths: [DTE_UPLOAD], companyRut: OURS }]);
    expect(board.take({ pathname: DTE_UPLOAD, companyRut: OURS })?.kind).toBe('timeout-after-receipt');
    expect(board.take({ pathname: DTE_UPLOAD, companyRut: OURS })).toBeNull();
  });

  it('companyRut: the body must be read first only on the paths such a fault covers (the uploads by default)', () => {
    const board = new FaultBoard();
    board.add({ kind: 'http500', paths: [CR_SEED] });
    expect(board.needsBody(DTE_UPLOAD)).toBe(false);
    board.add({ kind: 'down', companyRut: OURS });
    expect(board.needsBody(DTE_UPLOAD)).toBe(true);
    expect(board.needsBody(CR_SEED)).toBe(false);
    expect(board.needsBody('/sim/uploads')).toBe(false);
    // A company-scoped `down` without paths never hits a request that names no company.
    expect(board.take({ pathname: CR_SEED })?.kind).toBe('http500');
    expect(board.take({ pathname: '/DTEWS/GetTokenFromSeed.jws' })).toBeNull();
    expect(board.take({ pathname: DTE_UPLOAD, companyRut: OURS })?.kind).toBe('down');
  });

  it('companyRut is kept canonical, and an invalid one is refused', () => {
    const board = new FaultBoard();
    board.add({ kind: 'down', companyRut: '76.177.907-9' });
    expect(board.list()).toEqual([{ kind: 'down', companyRut: OURS }]);
    expect(board.take({ pathname: DTE_UPLOAD, companyRut: OURS })?.kind).toBe('down');
    expect(() => board.add({ kind: 'down', companyRut: '76177907-1' })).toThrow(/companyRut/);
    expect(() => board.add({ kind: 'down', count: 0 })).toThrow(/count/);
  });

  it('operations: only calls of those operations use the fault up; the body is read first on the paths it covers', () => {
    const board = new FaultBoard();
    board.add({
      kind: 'timeout-after-receipt',
      count: 1,
      paths: [REGISTRY],
      operations: ['ingresarAceptacionReclamoDoc'],
    });
    expect(board.needsBody(REGISTRY)).toBe(true);
    expect(board.needsBody(CR_SEED)).toBe(false);
    expect(board.take({ pathname: REGISTRY, operation: 'consultarFechaRecepcionSii' })).toBeNull();
    expect(board.take({ pathname: REGISTRY })).toBeNull();
    expect(board.take({ pathname: REGISTRY, operation: 'ingresarAceptacionReclamoDoc' })?.kind).toBe(
      'timeout-after-receipt',
    );
    expect(board.list()).toEqual([]);
    expect(() => board.add({ kind: 'down', operations: [] })).toThrow(/operations/);
    expect(() => board.add({ kind: 'down', operations: [''] })).toThrow(/operations/);
  });

  it('soapOperationOf reads the element under the SOAP Body, whatever its prefixes', () => {
    const call = (body: string) =>
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ws="http://ws.registroreclamodte.diii.sdi.sii.cl"><soapenv:Header/>${body}</soapenv:Envelope>`,
      );
    expect(
      soapOperationOf(
        call(
          '<soapenv:Body>\n  <ws:consultarFechaRecepcionSii><rutEmisor>1</rutEmisor></ws:consultarFechaRecepcionSii></soapenv:Body>',
        ),
      ),
    ).toBe('consultarFechaRecepcionSii');
    expect(soapOperationOf(call('<Body><ingresarAceptacionReclamoDoc/></Body>'))).toBe('ingresarAceptacionReclamoDoc');
    expect(soapOperationOf(call('<soapenv:Body></soapenv:Body>'))).toBeNull();
    expect(soapOperationOf(Buffer.from('rutCompany=1&dvCompany=9'))).toBeNull();
  });
});
