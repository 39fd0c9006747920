import { describe, expect, it } from 'vitest';
import { backToLoadedPatch, optionPatch, overridesKeptNotice } from './option_patch';

describe('solver panel option patches', () => {
  it('a preset change sends only the preset: explicit overrides keep applying', () => {
    expect(optionPatch('contact_preset_variant', 'drake')).toEqual({ contact_preset_variant: 'drake' });
  });
  it('says which preset overrides still apply, and nothing when none do', () => {
    const note = overridesKeptNotice('drake', { contact_weight_mode: 'body_inertia', rho: 0.5 });
    expect(note).toContain('contact_weight_mode=body_inertia');
    expect(note).not.toContain('rho');
    expect(overridesKeptNotice('drake', { rho: 0.5 })).toBe('');
  });
  it("back to the scene's options restores the file's values and drops the rest, keeping the preset", () => {
    const explicit = { contact_preset_variant: 'drake', rho: 0.5, armijo_c: 0.01, max_iterations: 7 };
    const loaded = { rho: 0.9, max_iterations: 7, contact_preset_variant: 'approx64' };
    expect(backToLoadedPatch(explicit, loaded)).toEqual({ armijo_c: null, rho: 0.9 });
  });
  it('numbers typed as text become numbers', () => {
    expect(optionPatch('rho', ' 0.25 ')).toEqual({ rho: 0.25 });
    expect(optionPatch('rho', 'x')).toEqual({ rho: 'x' });
  });
});
