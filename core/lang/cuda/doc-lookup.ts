// Finds the hover doc for a name as written in source: a C++ callee (qualified or not), a method
// called through `.` / `->`, or a PTX instruction token inside an asm string. Also renders a doc as
// Markdown. Pure functions over API_DOCS and the catalogue's doc ids; the indexes are built once at
// module load.
import { API_DOCS, type ApiDoc } from './api-docs';
import { CUDA_CATALOGUE } from './catalogue';

// --- indexes ---------------------------------------------------------------------------------

const byId = new Map<string, ApiDoc>();
/** Every C++ spelling (and PTX mnemonic) to its entry. */
const byName = new Map<string, ApiDoc>();
/** Method name (last `::` segment of a member entry's names) to its candidate entries, table order. */
const byMember = new Map<string, ApiDoc[]>();
/** PTX entries with their dotted spellings split into lower-case parts. */
const ptxForms: { doc: ApiDoc; parts: string[] }[] = [];

for (const doc of API_DOCS) {
  byId.set(doc.id, doc);
  for (const name of doc.names) {
    if (!byName.has(name)) byName.set(name, doc);
    if (doc.member) {
      const method = lastSegment(name);
      const list = byMember.get(method) ?? [];
      if (!list.includes(doc)) list.push(doc);
      byMember.set(method, list);
    }
  }
  if (doc.surface === 'ptx') {
    const spellings = new Set([...(doc.ptx ? [doc.ptx] : []), ...doc.names]);
    for (const s of spellings) ptxForms.push({ doc, parts: s.toLowerCase().split('.') });
  }
}

// The catalogue names each API's doc: its key is a spelling hovers must know even where the doc's
// own list of names lacks it. Appended after the doc table, so the table's own spellings win ties.
for (const [key, entry] of Object.entries(CUDA_CATALOGUE)) {
  const doc = entry.doc ? byId.get(entry.doc) : undefined;
  if (!doc) continue;
  if (entry.surface === 'function') {
    if (!byName.has(key)) byName.set(key, doc);
  } else if (entry.surface === 'method') {
    const name = key.slice(1);
    if (!byMember.has(name)) byMember.set(name, [doc]);
  } else {
    const parts = key.toLowerCase().split('.');
    if (!ptxForms.some((f) => f.doc === doc && f.parts.join('.') === parts.join('.'))) ptxForms.push({ doc, parts });
  }
}

/**
 * Unqualified names too generic to accept after dropping an unknown qualifier: `std::wait` or
 * `foo::init` must not resolve to ThunderKittens `wait` or cuda::barrier `init`. They still match
 * when written exactly (unqualified, or with a listed qualifier).
 */
const GENERIC_NAMES = new Set(['init', 'arrive', 'wait', 'sync', 'size', 'thread_rank', 'max', 'memcpy_async']);

/** Type aliases common in real kernels for the CUTLASS barrier classes (DeepGEMM, FlashMLA, CuTe tutorials). */
const RECEIVER_ALIASES: Record<string, string> = {
  Barrier: 'ClusterTransactionBarrier',
  ProducerBarType: 'ClusterTransactionBarrier',
  ConsumerBarType: 'ClusterBarrier',
  TransactionBarrier: 'ClusterTransactionBarrier',
};

// --- helpers ---------------------------------------------------------------------------------

function lastSegment(name: string): string {
  const i = name.lastIndexOf('::');
  return i < 0 ? name : name.slice(i + 2);
}

/** Removes balanced `<...>` template argument lists. */
function stripTemplateArgs(s: string): string {
  let out = '';
  let depth = 0;
  for (const ch of s) {
    if (ch === '<') depth++;
    else if (ch === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

/** `::cuda::ptx::mbarrier_arrive(` / `cuda::barrier<S>::arrive` -> `cuda::ptx::mbarrier_arrive` / `cuda::barrier::arrive`. */
function normalizeName(raw: string): string {
  let s = raw.trim();
  const paren = s.indexOf('(');
  if (paren >= 0) s = s.slice(0, paren);
  s = stripTemplateArgs(s).replace(/\s+/g, '');
  if (s.startsWith('::')) s = s.slice(2);
  return s;
}

// --- C++ names -------------------------------------------------------------------------------

/**
 * Doc for a name as written at a call site: `cuda::ptx::mbarrier_arrive`, `ptx::mbarrier_arrive`,
 * `mbarrier_arrive`, `init`, `barrier_arrive_tx`, `cuda::barrier<cuda::thread_scope_block>`,
 * `ClusterBarrier::wait`. Unknown leading qualifiers are dropped one at a time until a listed name
 * matches. A dotted PTX mnemonic is passed to `findPtxDoc`.
 */
export function findApiDoc(name: string): ApiDoc | undefined {
  const s = normalizeName(name);
  if (!s) return undefined;
  if (s.includes('.')) return findPtxDoc(s);
  const exact = byName.get(s);
  if (exact) return exact;
  const segments = s.split('::');
  for (let i = 1; i < segments.length; i++) {
    const suffix = segments.slice(i).join('::');
    const doc = byName.get(suffix);
    if (!doc) continue;
    if (!suffix.includes('::') && GENERIC_NAMES.has(suffix)) return undefined;
    return doc;
  }
  return undefined;
}

/** Last segment of a receiver type, with aliases resolved: `cutlass::arch::ClusterBarrier*` -> `ClusterBarrier`. */
function receiverClass(receiver: string): string {
  const s = stripTemplateArgs(receiver)
    .replace(/\b(const|volatile|struct|class)\b/g, '')
    .replace(/[*&\s]/g, '');
  const last = lastSegment(s);
  return RECEIVER_ALIASES[last] ?? last;
}

/** Class names (last segment) a member entry belongs to, from its qualified names. */
function ownerClasses(doc: ApiDoc): string[] {
  return doc.names.filter((n) => n.includes('::')).map((n) => lastSegment(n.slice(0, n.lastIndexOf('::'))));
}

/** Splits `.arrive`, `->wait`, `bar.arrive`, `Type::wait` into method and optional qualifier. */
function splitMember(name: string): { method: string; qualifier?: string } {
  let s = normalizeName(name.replace(/->/g, '.'));
  const dot = s.lastIndexOf('.');
  if (dot >= 0) s = s.slice(dot + 1);
  const i = s.lastIndexOf('::');
  return i < 0 ? { method: s } : { method: s.slice(i + 2), qualifier: s.slice(0, i) };
}

/** Every member entry a method name can refer to, in table order (cuda::barrier first). */
export function findMemberDocs(name: string): ApiDoc[] {
  const { method } = splitMember(name);
  return [...(byMember.get(method) ?? [])];
}

/**
 * Doc for a method call such as `.arrive`, `->wait`, `arrive_and_expect_tx`, `expect_transaction`.
 * `receiver` (the object's type as written, e.g. `cutlass::arch::ClusterTransactionBarrier*` or
 * `cuda::barrier<cuda::thread_scope_block>`) picks between same-named methods of different classes;
 * a qualified name (`ClusterBarrier::wait`) is used the same way. Without a usable hint the first
 * candidate in table order wins.
 */
export function findMemberDoc(name: string, receiver?: string): ApiDoc | undefined {
  const { method, qualifier } = splitMember(name);
  const candidates = byMember.get(method);
  if (!candidates || candidates.length === 0) return undefined;
  const hint = receiver ?? qualifier;
  if (hint) {
    const cls = receiverClass(hint);
    const match = candidates.find((doc) => ownerClasses(doc).includes(cls));
    if (match) return match;
  }
  return candidates[0];
}

// --- PTX -------------------------------------------------------------------------------------

/** Parts that may sit between or after the parts of a base mnemonic without changing which entry it is. */
const PTX_QUALIFIER =
  /^(shared(::(cta|cluster))?|global|local|const|param|[bsuf](8|16|32|64|128)|release|acquire|relaxed|acq_rel|sc|cta|cluster|gpu|sys|aligned)$/;

/** Number of base parts matched if every part of `base` appears in order, only qualifiers skipped; else 0. */
function matchBase(input: string[], base: string[]): number {
  let b = 0;
  for (const part of input) {
    if (b === base.length) break;
    if (part === base[b]) b++;
    else if (!PTX_QUALIFIER.test(part)) return 0;
  }
  return b === base.length ? base.length : 0;
}

/**
 * Doc for a PTX instruction token as written in asm, e.g.
 * `mbarrier.try_wait.parity.acquire.cta.shared::cta.b64` or
 * `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`.
 * Returns the most specific entry: the longest base mnemonic whose parts all appear in order,
 * skipping only state-space, type, ordering and scope qualifiers. A leading `@p` guard and trailing
 * operands are ignored.
 */
export function findPtxDoc(instruction: string): ApiDoc | undefined {
  let s = instruction.trim().replace(/^@!?%?[\w.]+\s+/, '');
  s = s.split(/[\s;,]/, 1)[0] ?? '';
  const input = s.toLowerCase().split('.').filter((p) => p.length > 0);
  if (input.length === 0) return undefined;
  let best: ApiDoc | undefined;
  let bestLen = 0;
  for (const form of ptxForms) {
    if (form.parts[0] !== input[0]) continue;
    const n = matchBase(input, form.parts);
    if (n > bestLen) {
      best = form.doc;
      bestLen = n;
    }
  }
  return best;
}

// --- rendering -------------------------------------------------------------------------------

/** The entry with this id, if any. */
export function getApiDoc(id: string): ApiDoc | undefined {
  return byId.get(id);
}

/**
 * Markdown for a hover: fenced signature (```cuda or ```ptx), summary, barrier effect, phase rules
 * (when present), whether it counts as an arrival (when known) and related entries.
 */
export function renderApiDoc(doc: ApiDoc): string {
  const lang = doc.surface === 'ptx' ? 'ptx' : 'cuda';
  const parts = ['```' + lang + '\n' + doc.signature + '\n```', doc.summary, `**Barrier effect:** ${doc.semantics}`];
  if (doc.phaseRules) parts.push(`**Phase rules:** ${doc.phaseRules}`);
  if (doc.arrives !== undefined) parts.push(`Counts as an arrival: ${doc.arrives ? 'yes' : 'no'}`);
  const related = (doc.seeAlso ?? [])
    .map((id) => byId.get(id))
    .filter((d): d is ApiDoc => d !== undefined)
    .map((d) => '`' + (d.ptx ?? d.names[0]) + '`');
  if (related.length > 0) parts.push(`See also: ${related.join(', ')}`);
  return parts.join('\n\n');
}
