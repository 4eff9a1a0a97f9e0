/**
 * The SII's matrix for the claims registry (docs/receiving.md §4, WSRR validation column), as
 * Timbre applies it before calling the SII: every row of the table, and the 8 days.
 */
import { describe, expect, it } from 'vitest';
import { type Accion, planActions, recordedActions } from '../../src/receiving/decisions.ts';

const plan = (recorded: Accion[], wanted: Accion[], late = false) => planActions(new Set(recorded), wanted, late);

describe('the registry matrix', () => {
  it.each([
    // already recorded, incoming, result
    [[], ['ACD'], { actions: ['ACD'] }],
    [[], ['ACD', 'ERM'], { actions: ['ACD', 'ERM'] }],
    [[], ['RFT'], { actions: ['RFT'] }],
    [['RCD'], ['ACD', 'ERM'], { refusal: 6 }],
    [['RCD'], ['RFP'], { actions: ['RFP'] }],
    [['RFP'], ['RFP'], { refusal: 7 }],
    [['RCD'], ['ACD'], { refusal: 12 }],
    [['ACD'], ['ACD', 'ERM'], { actions: ['ERM'] }],
    [['ACD'], ['RCD'], { refusal: 11 }],
    [['ERM'], ['ACD'], { actions: ['ACD'] }],
    [['ERM'], ['RFT'], { refusal: 13 }],
    [['ACD'], ['ACD'], { refusal: 7 }],
    [['ACD', 'ERM'], ['ACD', 'ERM'], { refusal: 7 }],
  ] as [Accion[], Accion[], unknown][])('%j then %j → %j', (recorded, wanted, result) => {
    expect(plan(recorded, wanted)).toEqual(result);
  });

  it('after the 8 days nothing is recorded (8), whatever was before', () => {
    expect(plan([], ['ACD'], true)).toEqual({ refusal: 8 });
    expect(plan(['ACD'], ['ERM'], true)).toEqual({ refusal: 8 });
  });

  it('counts what the SII holds and what pending decisions will send, not what it refused', () => {
    const recorded = recordedActions([
      { state: 'refused', actions: ['ACD', 'ERM'], registered: ['ACD'] },
      { state: 'pending', actions: ['RFT'], registered: [] },
      { state: 'done', actions: ['RCD'], registered: ['RCD'] },
    ]);
    expect([...recorded].sort()).toEqual(['ACD', 'RCD', 'RFT']);
  });
});
