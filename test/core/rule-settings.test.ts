// Rule settings (core/rule-settings.ts), which the language server's `phaseflip.rules` and the CLI's
// `--rule` share: bad values are reported and dropped, and the rest become lint options.
import { describe, expect, it } from 'vitest';
import { lintOptionsFor, parseRuleSettings } from '../../core/index';

describe('rule settings', () => {
  it('keeps valid settings, reports bad ones, and turns them into lint options', () => {
    const warnings: string[] = [];
    const rules = parseRuleSettings({ PF105: 'hint', PF102: 'loud' }, (m) => warnings.push(m));
    expect(rules).toEqual({ PF105: 'hint' });
    expect(warnings).toEqual(['phaseflip.rules.PF102: expected one of error, warning, information, hint, off, got "loud"; ignored']);
    expect(parseRuleSettings([], () => {})).toBeUndefined();
    expect(lintOptionsFor({})).toEqual({});
    expect(lintOptionsFor(rules!)).toEqual({ rules: { PF105: 'hint' } });
  });
});
