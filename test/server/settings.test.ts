// How the server reads the `phaseflip` settings section: rule severities and `off`, the lint
// debounce and the code lens switch, from nested or dotted keys, with bad values reported and
// dropped (never fatal, never silently half-applied).
import { describe, expect, it } from 'vitest';
import { defaultSettings, parseSettings, toLintOptions } from '../../server/settings';

function parse(raw: unknown, base = defaultSettings()) {
  const warnings: string[] = [];
  const settings = parseSettings(raw, (m) => warnings.push(m), base);
  return { settings, warnings };
}

describe('parseSettings', () => {
  it('defaults: 150 ms debounce, no overrides, code lenses on', () => {
    expect(parse(undefined).settings).toEqual({ debounceMs: 150, rules: {}, codeLens: true });
  });

  it('reads the nested form VS Code sends for the section', () => {
    const { settings, warnings } = parse({ lint: { debounceMs: 40 }, rules: { PF105: 'hint', 'parity-never-flips': 'off' }, codeLens: { enabled: false } });
    expect(settings).toEqual({ debounceMs: 40, rules: { PF105: 'hint', 'parity-never-flips': 'off' }, codeLens: false });
    expect(warnings).toEqual([]);
    expect(toLintOptions(settings)).toEqual({ rules: { PF105: 'hint', 'parity-never-flips': 'off' } });
  });

  it('reads dotted keys, with or without the section prefix', () => {
    expect(parse({ 'lint.debounceMs': 0, 'codeLens.enabled': false }).settings).toMatchObject({ debounceMs: 0, codeLens: false });
    expect(parse({ phaseflip: { 'phaseflip.codeLens.enabled': false } }).settings.codeLens).toBe(false);
  });

  it('keeps the previous value and warns, naming the setting, on a bad value', () => {
    const base = { debounceMs: 10, rules: { PF101: 'error' as const }, codeLens: false };
    const { settings, warnings } = parse({ lint: { debounceMs: -1 }, codeLens: { enabled: 'yes' }, rules: { PF102: 'loud' } }, base);
    expect(settings).toEqual({ debounceMs: 10, rules: {}, codeLens: false });
    expect(warnings.join('\n')).toMatch(/phaseflip\.lint\.debounceMs must be a number >= 0/);
    expect(warnings.join('\n')).toMatch(/phaseflip\.codeLens\.enabled must be true or false, got "yes"/);
    expect(warnings.join('\n')).toMatch(/phaseflip\.rules\.PF102: expected one of error, warning, information, hint, off/);
  });

  it('caps the debounce at one minute', () => {
    expect(parse({ lint: { debounceMs: 10_000_000 } }).settings.debounceMs).toBe(60_000);
  });
});
