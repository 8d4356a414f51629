// Launch shapes the user states outside the source, for kernels launched where the translation unit
// cannot see (another file, Python, a framework): the `phaseflip.launch` setting and `--launch` on the
// command line. Parsed and matched to kernels here; the front end ranks them among its own sources
// (docs/launch-shapes.md).

export type LaunchDim3 = [number, number, number];

/** One kernel's stated launch: which kernels it names, and what of the shape it gives. */
export interface LaunchSetting {
  /** The key as written: `gemm`, `src/gemm.cu:gemm`, `gemm<128, 4>`. */
  key: string;
  /** The kernel's unqualified name (a namespace in the key is not compared). */
  kernel: string;
  /** `path:kernel`: the file the kernel is defined in, as a path or its trailing components. */
  file?: string;
  /** `kernel<args>`: the instantiation it describes, its template arguments as written. */
  templateArgs?: string[];
  block?: LaunchDim3;
  grid?: LaunchDim3;
  cluster?: LaunchDim3;
  /** Dynamic shared memory in bytes. */
  smem?: number;
  /** Where the user said it, for hovers: the editor's setting or `--launch`. */
  origin: 'settings' | 'command line' | 'config file';
}

const MAX_THREADS = 1024;
const FIELDS = ['block', 'grid', 'cluster', 'smem'] as const;

/**
 * The kernel part of a key: `[path:]name[<args>]`. The path ends at the last single colon before the
 * name (`ns::k` is a qualified name, `C:\src\k.cu:k` a Windows path).
 */
export function parseLaunchKey(key: string): Pick<LaunchSetting, 'kernel' | 'file' | 'templateArgs'> | undefined {
  const text = key.trim();
  const lt = text.indexOf('<');
  const head = lt < 0 ? text : text.slice(0, lt);
  let templateArgs: string[] | undefined;
  if (lt >= 0) {
    if (!text.endsWith('>')) return undefined;
    templateArgs = splitTemplateArgs(text.slice(lt + 1, -1));
    if (!templateArgs) return undefined;
  }
  const m = /^(?:(.*[^:]):(?!:))?((?:[A-Za-z_]\w*::)*([A-Za-z_]\w*))\s*$/s.exec(head);
  if (!m) return undefined;
  return { kernel: m[3], ...(m[1] ? { file: m[1].trim() } : {}), ...(templateArgs ? { templateArgs } : {}) };
}

/** `float, 128, Cfg<2, 3>` → its top-level arguments, whitespace removed; undefined when unbalanced. */
function splitTemplateArgs(text: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '<' || c === '(') depth++;
    else if (c === '>' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) return undefined;
  }
  if (depth !== 0) return undefined;
  out.push(text.slice(start));
  const args = out.map((a) => a.replace(/\s+/g, ''));
  return args.every((a) => a !== '') ? args : undefined;
}

/** A dimension as the setting or `--launch` writes it: `128`, `[128, 1, 1]`, `"32x4"`, `"128,1,1"`. */
export function parseLaunchDim(value: unknown): LaunchDim3 | undefined {
  let parts: unknown[];
  if (typeof value === 'number') parts = [value];
  else if (Array.isArray(value)) parts = value;
  // A separator's blank run is tried from its first blank only (it was rescanned from each, quadratic).
  else if (typeof value === 'string') parts = value.trim().replace(/^[([{]|[)\]}]$/g, '').split(/(?<!\s)\s*[,x]\s*|[,x]\s*/).map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  else return undefined;
  if (parts.length < 1 || parts.length > 3 || !parts.every((p): p is number => typeof p === 'number' && Number.isInteger(p) && p > 0)) return undefined;
  return [parts[0], parts[1] ?? 1, parts[2] ?? 1];
}

/** The shape fields of one entry; a problem for each field that is not usable. */
function parseShape(value: Record<string, unknown>, where: string, problems: string[]): Pick<LaunchSetting, 'block' | 'grid' | 'cluster' | 'smem'> {
  const out: Pick<LaunchSetting, 'block' | 'grid' | 'cluster' | 'smem'> = {};
  for (const [field, v] of Object.entries(value)) {
    if (!(FIELDS as readonly string[]).includes(field)) {
      problems.push(`${where}: unknown field '${field}' (expected ${FIELDS.join(', ')})`);
      continue;
    }
    if (field === 'smem') {
      const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
      if (typeof n === 'number' && Number.isInteger(n) && n >= 0) out.smem = n;
      else problems.push(`${where}: smem must be a number of bytes, got ${JSON.stringify(v)}`);
      continue;
    }
    const d = parseLaunchDim(v);
    if (!d) problems.push(`${where}: ${field} must be a positive integer or [x, y, z], got ${JSON.stringify(v)}`);
    else if (field === 'block' && d[0] * d[1] * d[2] > MAX_THREADS) problems.push(`${where}: a block has at most ${MAX_THREADS} threads, got ${d.join('x')}`);
    else out[field as 'block' | 'grid' | 'cluster'] = d;
  }
  return out;
}

/**
 * The `phaseflip.launch` setting: `{ "<kernel key>": { "block": 128, "grid": [132, 1, 1], "cluster": [2, 1, 1], "smem": 4096 } }`.
 * Entries that are not usable are reported in `problems` and left out; the others are kept in the order written.
 */
export function parseLaunchSettings(value: unknown, origin: LaunchSetting['origin'] = 'settings'): { settings: LaunchSetting[]; problems: string[] } {
  const settings: LaunchSetting[] = [];
  const problems: string[] = [];
  if (value === undefined || value === null) return { settings, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`phaseflip.launch must be an object mapping a kernel to its launch shape, got ${JSON.stringify(value)}`);
    return { settings, problems };
  }
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const where = `phaseflip.launch["${key}"]`;
    const target = parseLaunchKey(key);
    if (!target) {
      problems.push(`${where}: the key must name a kernel (\`name\`, \`file.cu:name\` or \`name<args>\`)`);
      continue;
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      problems.push(`${where} must be an object such as { "block": 128 }, got ${JSON.stringify(entry)}`);
      continue;
    }
    const before = problems.length;
    const shape = parseShape(entry as Record<string, unknown>, where, problems);
    if (Object.keys(shape).length) settings.push({ key, ...target, ...shape, origin });
    else if (problems.length === before) problems.push(`${where} gives none of ${FIELDS.join(', ')}`);
  }
  return { settings, problems };
}

/**
 * `--launch KERNEL:block=128,grid=132,cluster=2x1x1,smem=4096` (a dimension as `128`, `32x4` or
 * `128,1,1`). KERNEL is a key as in the setting (`file.cu:k`, `k<128>`). Returns the setting, or why not.
 */
export function parseLaunchFlag(text: string): LaunchSetting | string {
  const m = /^(.*?):\s*((?:block|grid|cluster|smem)\s*=.*)$/s.exec(text);
  if (!m) return `--launch expects KERNEL:block=N[,grid=...,cluster=XxYxZ,smem=BYTES], got '${text}'`;
  const target = parseLaunchKey(m[1]);
  if (!target) return `--launch: '${m[1]}' does not name a kernel (name, file.cu:name or name<args>)`;
  // Fields are `name=value` separated by commas; a comma-separated part without `=` continues a dimension (`block=128,1,1`).
  const fields: Record<string, string> = {};
  let last: string | undefined;
  for (const part of m[2].split(',')) {
    const eq = /^\s*(\w+)\s*=\s*(.*)$/.exec(part);
    if (eq) {
      last = eq[1];
      fields[last] = eq[2].trim();
    } else if (last) fields[last] += `,${part.trim()}`;
  }
  const problems: string[] = [];
  const shape = parseShape(fields, `--launch ${m[1]}`, problems);
  if (problems.length) return problems[0];
  return { key: m[1].trim(), ...target, ...shape, origin: 'command line' };
}

/**
 * The settings that name a kernel called `name` defined in `file`, most specific first: a file and a
 * template-id, a file, a template-id, the bare name; in the order given within each (the command
 * line's before the settings'). The caller decides whether a template-id fits the kernel's instantiation.
 */
export function launchSettingsFor(settings: readonly LaunchSetting[], name: string, file: string | undefined): LaunchSetting[] {
  const rank = (s: LaunchSetting): number => (s.file ? 0 : 2) + (s.templateArgs ? 0 : 1);
  return settings
    .filter((s) => s.kernel === name && (!s.file || (file !== undefined && pathMatches(file, s.file))))
    .map((s, i) => ({ s, i }))
    .sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i)
    .map(({ s }) => s);
}

/** Whether `file` is `wanted` or ends with it as whole path components (`src/gemm.cu` matches `/p/src/gemm.cu`). */
function pathMatches(file: string, wanted: string): boolean {
  const f = file.replace(/\\/g, '/');
  const w = wanted.replace(/\\/g, '/').replace(/^\.\//, '');
  return f === w || f.endsWith(`/${w}`);
}
