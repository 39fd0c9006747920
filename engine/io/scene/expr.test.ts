import { describe, expect, it } from 'vitest';
import { ExprError, SceneError } from './errors';
import { evalExpr, MAX_EXPR_DEPTH, toNumber } from './expr';

describe('evalExpr', () => {
  it.each([
    ['1', 1],
    ['  2.5 ', 2.5],
    ['.5', 0.5],
    ['1.', 1],
    ['1e-3', 1e-3],
    ['2.5E+2', 250],
    ['pi', Math.PI],
    ['PI', Math.PI],
    ['-pi', -Math.PI],
    ['pi * 0.5', Math.PI / 2],
    ['-(pi / 4)', -Math.PI / 4],
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['8 / 4 / 2', 1],
    ['10 - 4 - 3', 3],
    ['--1', 1],
    ['+-+2', -2],
    ['2 * -3', -6],
    ['-2 * pi / 3', (-2 * Math.PI) / 3],
    ['((((1))))', 1],
  ])('%s = %d', (src, want) => {
    expect(evalExpr(src)).toBeCloseTo(want, 15);
  });

  it('accepts inf only when named', () => {
    expect(evalExpr('inf')).toBe(Infinity);
    expect(evalExpr('-inf')).toBe(-Infinity);
    expect(() => evalExpr('1 / 0')).toThrow(/division by zero/);
    expect(() => evalExpr('1e400')).toThrow(/out of range/);
    expect(() => evalExpr('inf - inf')).toThrow(/not a number/);
    expect(() => evalExpr('1e308 * 10')).toThrow(/overflows/);
  });

  it.each([
    ['', /empty expression/],
    ['   ', /empty expression/],
    ['pi *', /unexpected end/],
    ['2pi', /unexpected 'pi'/],
    ['foo', /unknown name 'foo'/],
    ['eval(1)', /unknown name 'eval'/],
    ['Math.PI', /unexpected character '\.'/],
    ['2 ** 3', /'\*\*' is not supported/],
    ['2 ^ 3', /unexpected character '\^'/],
    ['(1 + 2', /expected '\)'/],
    ['1 + 2)', /unexpected '\)'/],
    ['1 2', /unexpected '2'/],
    ['()', /unexpected '\)'/],
    ['1,5', /unexpected character ','/],
  ])('rejects %j', (src, re) => {
    expect(() => evalExpr(src)).toThrow(re);
  });

  it('limits length and depth', () => {
    expect(() => evalExpr('1+'.repeat(600) + '1')).toThrow(/longer than/);
    const deep = '('.repeat(MAX_EXPR_DEPTH + 5) + '1' + ')'.repeat(MAX_EXPR_DEPTH + 5);
    expect(() => evalExpr(deep)).toThrow(/nesting deeper/);
    expect(() => evalExpr('-'.repeat(MAX_EXPR_DEPTH + 5) + '1')).toThrow(/nesting deeper/);
  });

  it('names the key path and the column', () => {
    try {
      evalExpr('pi * * 2', 'joints[1].limit_lower');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ExprError);
      expect(e).toBeInstanceOf(SceneError);
      const x = e as ExprError;
      expect(x.path).toBe('joints[1].limit_lower');
      expect(x.exprColumn).toBe(6);
      expect(x.message).toMatch(/^joints\[1\]\.limit_lower: invalid expression 'pi \* \* 2'/);
    }
    try {
      evalExpr('x', ['bodies', 0, 'mass']);
      expect.unreachable();
    } catch (e) {
      expect((e as ExprError).path).toBe('bodies[0].mass');
    }
  });

  it('toNumber passes numbers through and evaluates strings', () => {
    expect(toNumber(3)).toBe(3);
    expect(toNumber('pi')).toBe(Math.PI);
    expect(() => toNumber(null, 'a.b')).toThrow(/^a\.b: expected a number/);
    expect(() => toNumber(NaN)).toThrow(/NaN/);
    expect(() => toNumber(true)).toThrow(ExprError);
  });
});
