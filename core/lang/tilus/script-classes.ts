// What a tilus file declares: its `tilus.Script` classes (kernels: `__call__` is the kernel body), its
// `tilus.Class` classes (helpers instantiated inside a kernel, such as a `Pipeline`), and the autotune
// space of each Script (`@tilus.autotune("a, b", [[..], ..])`, the `__init__` defaults otherwise).
import type { Range } from '../../api';
import { type PyNode, namedChildren, rangeOf } from './parser';

export interface TilusClass {
  name: string;
  kind: 'script' | 'class';
  node: PyNode;
  nameRange: Range;
  range: Range;
  /** Methods by name (`__init__`, `__call__`, helpers). */
  methods: Map<string, PyNode>;
  /** One entry per `@tilus.autotune` decorator, outermost first. */
  autotune: AutotuneAxis[];
}

/** One `@tilus.autotune(names, values)`: the names it sets together, and each row of values. */
export interface AutotuneAxis {
  names: string[];
  /** Values per row, per name; undefined where a value is not an integer or boolean. */
  rows: (number | undefined)[][];
  range: Range;
}

/** One combination of a Script's compile-time parameters: the values the kernel is analysed with. */
export interface Combination {
  values: Map<string, number>;
  /** `num_stages=3, block_k=64` (empty when the Script has no parameters). */
  label: string;
}

/** Classes of the module (top level, and inside `if`/`try` blocks at top level) that derive from tilus.Script or tilus.Class. */
export function tilusClasses(root: PyNode): TilusClass[] {
  const out: TilusClass[] = [];
  const visit = (n: PyNode): void => {
    for (const c of namedChildren(n)) {
      if (c.type === 'decorated_definition') {
        const def = c.childForFieldName('definition');
        if (def?.type === 'class_definition') addClass(def, c, out);
      } else if (c.type === 'class_definition') addClass(c, c, out);
      else if (c.type === 'if_statement' || c.type === 'try_statement' || c.type === 'block' || c.type === 'else_clause') visit(c);
    }
  };
  visit(root);
  return out;
}

function addClass(def: PyNode, outer: PyNode, out: TilusClass[]): void {
  const bases = namedChildren(def.childForFieldName('superclasses')).map((b) => b.text.replace(/\s+/g, ''));
  const kind = bases.some((b) => /^(tilus\.)?Script$/.test(b)) ? 'script' : bases.some((b) => /^(tilus\.)?Class$/.test(b)) ? 'class' : undefined;
  const name = def.childForFieldName('name');
  if (!kind || !name) return;
  const methods = new Map<string, PyNode>();
  for (const m of namedChildren(def.childForFieldName('body'))) {
    const fn = m.type === 'decorated_definition' ? m.childForFieldName('definition') : m;
    const fname = fn?.type === 'function_definition' ? fn.childForFieldName('name')?.text : undefined;
    if (fn && fname) methods.set(fname, fn);
  }
  const autotune: AutotuneAxis[] = [];
  if (outer.type === 'decorated_definition') {
    for (const d of namedChildren(outer).filter((x) => x.type === 'decorator')) {
      const call = namedChildren(d)[0];
      if (call?.type !== 'call' || !/^(tilus\.)?autotune$/.test(call.childForFieldName('function')?.text ?? '')) continue;
      const args = namedChildren(call.childForFieldName('arguments'));
      const namesNode = args[0];
      const valuesNode = args[1];
      if (namesNode?.type !== 'string' || !valuesNode) continue;
      const names = stringValue(namesNode).split(',').map((s) => s.trim()).filter(Boolean);
      const items = valuesNode.type === 'list' || valuesNode.type === 'tuple' ? namedChildren(valuesNode) : [];
      const rows = items.map((item) => {
        if (names.length === 1) return [literalNumber(item)];
        const parts = item.type === 'list' || item.type === 'tuple' ? namedChildren(item) : [];
        return names.map((_, i) => (parts[i] ? literalNumber(parts[i]) : undefined));
      });
      if (rows.length) autotune.push({ names, rows, range: rangeOf(d) });
    }
  }
  out.push({ name: name.text, kind, node: def, nameRange: rangeOf(name), range: rangeOf(outer), methods, autotune });
}

/** The text of a plain string literal (no f-strings). */
export function stringValue(n: PyNode): string {
  return namedChildren(n).filter((c) => c.type === 'string_content').map((c) => c.text).join('');
}

/** The value of an integer or boolean literal (with a unary minus), or undefined. */
export function literalNumber(n: PyNode): number | undefined {
  if (n.type === 'integer') {
    const v = Number(n.text.replace(/_/g, ''));
    return Number.isSafeInteger(v) ? v : undefined;
  }
  if (n.type === 'true') return 1;
  if (n.type === 'false') return 0;
  if (n.type === 'unary_operator' && n.child(0)?.type === '-') {
    const v = literalNumber(namedChildren(n)[0]!);
    return v === undefined ? undefined : -v;
  }
  if (n.type === 'parenthesized_expression') {
    const inner = namedChildren(n)[0];
    return inner ? literalNumber(inner) : undefined;
  }
  return undefined;
}

/** Past this many combinations a Script is analysed at the first ones only (and says so). */
export const MAX_COMBINATIONS = 256;

/**
 * Every combination of the autotune space (the cartesian product of the decorators' rows), each with the
 * `__init__` defaults for parameters no decorator sets. A Script without autotune has one combination.
 */
export function combinations(cls: TilusClass): { list: Combination[]; total: number } {
  const defaults = new Map<string, number>();
  const init = cls.methods.get('__init__');
  for (const p of namedChildren(init?.childForFieldName('parameters'))) {
    if (p.type !== 'default_parameter' && p.type !== 'typed_default_parameter') continue;
    const name = p.childForFieldName('name')?.text;
    const value = p.childForFieldName('value');
    const v = value ? literalNumber(value) : undefined;
    if (name && v !== undefined) defaults.set(name, v);
  }
  let partial: Map<string, number | undefined>[] = [new Map()];
  let total = 1;
  for (const axis of cls.autotune) total *= axis.rows.length;
  for (const axis of cls.autotune) {
    const next: Map<string, number | undefined>[] = [];
    for (const p of partial) {
      for (const row of axis.rows) {
        if (next.length >= MAX_COMBINATIONS) break;
        const m = new Map(p);
        axis.names.forEach((n, i) => m.set(n, row[i]));
        next.push(m);
      }
    }
    partial = next;
  }
  const tuned = cls.autotune.flatMap((a) => a.names);
  const list = partial.map((p) => {
    const values = new Map(defaults);
    for (const [k, v] of p) {
      if (v === undefined) values.delete(k);
      else values.set(k, v);
    }
    const label = tuned.filter((n) => p.get(n) !== undefined).map((n) => `${n}=${p.get(n)}`).join(', ');
    return { values, label };
  });
  return { list, total };
}
