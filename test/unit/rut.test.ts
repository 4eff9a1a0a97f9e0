import { describe, expect, it } from 'vitest';
import { computeDv, formatRutDisplay, isValidRut, normalizeRut, splitRut } from '../../src/dte/rut.ts';

describe('RUT check digit (módulo 11)', () => {
  it.each([
    ['60910000', '1'],
    ['76555835', '2'],
    ['76177907', '9'],
    ['76369187', 'K'],
    ['77879240', '0'],
    ['96874030', 'K'],
    ['60803000', 'K'],
    ['66666666', '6'],
  ])('%s → %s', (body, dv) => {
    expect(computeDv(body)).toBe(dv);
    expect(isValidRut(`${body}-${dv}`)).toBe(true);
  });

  it('rejects a wrong check digit, including K and 0 confusions', () => {
    expect(isValidRut('76369187-0')).toBe(false);
    expect(isValidRut('77879240-K')).toBe(false);
    expect(isValidRut('60910000-2')).toBe(false);
  });

  it('rejects malformed text', () => {
    for (const bad of [
      '',
      '-',
      '123',
      '76369187',
      '76369187-',
      '76369187-X',
      'abc-1',
      '0-0',
      '076369187-K',
      '7636 9187-K',
    ]) {
      expect(normalizeRut(bad), bad).toBeNull();
    }
  });

  it('normalises a lowercase k and the dotted display form', () => {
    expect(normalizeRut('76369187-k')).toBe('76369187-K');
    expect(normalizeRut('76.369.187-K')).toBe('76369187-K');
    expect(formatRutDisplay('76369187-K')).toBe('76.369.187-K');
    expect(splitRut('60910000-1')).toEqual({ body: '60910000', dv: '1' });
  });
});
