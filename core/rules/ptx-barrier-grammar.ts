// The PTX ISA's instruction forms of the barrier family (mbarrier.*, cp.async.*, cp.async.bulk(.tensor/.prefetch),
// fence.mbarrier_init, fence.proxy.async, tcgen05.commit/fence, barrier.cluster.*) as qualifier groups, and a
// checker that says what in a written mnemonic the ISA does not define. Read by the rule undefined-ptx-barrier-instruction.
//
// Each form follows the "Syntax" block of its ISA section (PTX ISA 9.0, sections 9.7.9.x cp.async*, 9.7.13.15
// mbarrier, 9.7.13.4 fence, 9.7.13.3 barrier.cluster, 9.7.16.x tcgen05). ptxas (CUDA 13.0) accepts the optional
// qualifiers after the base name in any order (`.cta.release` as well as `.release.cta`) but keeps the state spaces
// positional (destination, then source), so this checker does too; it flags only what ptxas rejects.

/** One set of alternative qualifiers, of which a form takes at most one (exactly one when required). */
interface QualifierGroup {
  name: string;
  options: string[];
  required?: boolean;
}

interface PtxForm {
  /** Opcode and the qualifiers that name the instruction, in their fixed order (`mbarrier.try_wait.parity`). */
  base: string;
  groups: QualifierGroup[];
  /** State spaces in order (destination, then source); each entry lists the spaces allowed there. */
  spaces?: { name: string; options: string[]; required: boolean }[];
  /** Group names that must appear together (`.sem` needs `.scope` and vice versa on mbarrier ops). */
  together?: [string, string];
  /** The destination operand must be the sink `_` when this qualifier is present. */
  sinkWith?: string;
}

const B64: QualifierGroup = { name: 'type', options: ['b64'], required: true };
const SCOPE: QualifierGroup = { name: 'scope', options: ['cta', 'cluster'] };
const RELEASE_SEM: QualifierGroup = { name: 'sem', options: ['release', 'relaxed'] };
const ACQUIRE_SEM: QualifierGroup = { name: 'sem', options: ['acquire', 'relaxed'] };
const CTA_SPACE = { name: 'state space', options: ['shared', 'shared::cta'], required: false };
const ANY_SHARED_SPACE = { name: 'state space', options: ['shared', 'shared::cta', 'shared::cluster'], required: false };
const L2_HINT: QualifierGroup = { name: 'cache hint', options: ['L2::cache_hint'] };
const MULTICAST: QualifierGroup = { name: 'multicast', options: ['multicast::cluster'] };
const COMPLETE_TX: QualifierGroup = { name: 'completion mechanism', options: ['mbarrier::complete_tx::bytes'], required: true };
const BULK_GROUP: QualifierGroup = { name: 'completion mechanism', options: ['bulk_group'], required: true };
const DIM: QualifierGroup = { name: 'dimension', options: ['1d', '2d', '3d', '4d', '5d'], required: true };
const LOAD_MODE: QualifierGroup = { name: 'load mode', options: ['tile', 'tile::gather4', 'im2col', 'im2col::w', 'im2col::w::128'] };

const arriveForm = (base: string, extra: QualifierGroup[] = []): PtxForm => ({
  base,
  groups: [RELEASE_SEM, SCOPE, ...extra, B64],
  spaces: [ANY_SHARED_SPACE],
  together: ['sem', 'scope'],
  sinkWith: 'shared::cluster',
});
const waitForm = (base: string): PtxForm => ({ base, groups: [ACQUIRE_SEM, SCOPE, B64], spaces: [CTA_SPACE], together: ['sem', 'scope'] });

export const PTX_BARRIER_FORMS: PtxForm[] = [
  // mbarrier (9.7.13.15).
  { base: 'mbarrier.init', groups: [B64], spaces: [CTA_SPACE] },
  { base: 'mbarrier.inval', groups: [B64], spaces: [CTA_SPACE] },
  { base: 'mbarrier.expect_tx', groups: [{ name: 'sem', options: ['relaxed'] }, SCOPE, B64], spaces: [ANY_SHARED_SPACE], together: ['sem', 'scope'] },
  { base: 'mbarrier.complete_tx', groups: [{ name: 'sem', options: ['relaxed'] }, SCOPE, B64], spaces: [ANY_SHARED_SPACE], together: ['sem', 'scope'] },
  arriveForm('mbarrier.arrive'),
  arriveForm('mbarrier.arrive.expect_tx'),
  arriveForm('mbarrier.arrive_drop'),
  arriveForm('mbarrier.arrive_drop.expect_tx'),
  { base: 'mbarrier.arrive.noComplete', groups: [{ name: 'sem', options: ['release'] }, { name: 'scope', options: ['cta'] }, B64], spaces: [CTA_SPACE], together: ['sem', 'scope'] },
  { base: 'mbarrier.arrive_drop.noComplete', groups: [{ name: 'sem', options: ['release'] }, { name: 'scope', options: ['cta'] }, B64], spaces: [CTA_SPACE], together: ['sem', 'scope'] },
  waitForm('mbarrier.test_wait'),
  waitForm('mbarrier.test_wait.parity'),
  waitForm('mbarrier.try_wait'),
  waitForm('mbarrier.try_wait.parity'),
  { base: 'mbarrier.pending_count', groups: [B64], spaces: [] },
  // cp.async (9.7.9.3) and its mbarrier arrive (9.7.9.3.x).
  {
    base: 'cp.async',
    groups: [{ name: 'cache operator', options: ['ca', 'cg'], required: true }, L2_HINT, { name: 'prefetch size', options: ['L2::64B', 'L2::128B', 'L2::256B'] }],
    spaces: [{ name: 'destination state space', options: ['shared', 'shared::cta'], required: true }, { name: 'source state space', options: ['global'], required: true }],
  },
  { base: 'cp.async.commit_group', groups: [] },
  { base: 'cp.async.wait_group', groups: [] },
  { base: 'cp.async.wait_all', groups: [] },
  { base: 'cp.async.mbarrier.arrive', groups: [{ name: 'noinc', options: ['noinc'] }, B64], spaces: [CTA_SPACE] },
  // cp.async.bulk (9.7.9.25): global to shared, shared::cta to shared::cluster, shared::cta to global.
  {
    base: 'cp.async.bulk',
    groups: [COMPLETE_TX, MULTICAST, L2_HINT],
    spaces: [{ name: 'destination state space', options: ['shared::cluster'], required: true }, { name: 'source state space', options: ['global'], required: true }],
  },
  // PTX 8.6: into the issuing CTA's own shared memory, without multicast; `.ignore_oob` is newer than ptxas 13.0
  // (CCCL's cp_async_bulk_ignore_oob), so it is accepted rather than flagged on code written for a newer toolkit.
  {
    base: 'cp.async.bulk',
    groups: [COMPLETE_TX, L2_HINT, { name: 'out-of-bounds', options: ['ignore_oob'] }],
    spaces: [{ name: 'destination state space', options: ['shared::cta'], required: true }, { name: 'source state space', options: ['global'], required: true }],
  },
  {
    base: 'cp.async.bulk',
    groups: [COMPLETE_TX],
    spaces: [{ name: 'destination state space', options: ['shared::cluster'], required: true }, { name: 'source state space', options: ['shared::cta'], required: true }],
  },
  {
    base: 'cp.async.bulk',
    groups: [BULK_GROUP, L2_HINT, { name: 'byte mask', options: ['cp_mask'] }],
    spaces: [{ name: 'destination state space', options: ['global'], required: true }, { name: 'source state space', options: ['shared::cta'], required: true }],
  },
  { base: 'cp.async.bulk.prefetch', groups: [{ name: 'level', options: ['L2'], required: true }, L2_HINT], spaces: [{ name: 'source state space', options: ['global'], required: true }] },
  { base: 'cp.async.bulk.commit_group', groups: [] },
  { base: 'cp.async.bulk.wait_group', groups: [{ name: 'read', options: ['read'] }] },
  // cp.async.bulk.tensor (9.7.9.27): loads into shared memory, stores from it; prefetch (9.7.9.28).
  {
    base: 'cp.async.bulk.tensor',
    groups: [DIM, LOAD_MODE, COMPLETE_TX, MULTICAST, { name: 'CTA group', options: ['cta_group::1', 'cta_group::2'] }, L2_HINT],
    spaces: [{ name: 'destination state space', options: ['shared::cluster', 'shared::cta'], required: true }, { name: 'source state space', options: ['global'], required: true }],
  },
  {
    base: 'cp.async.bulk.tensor',
    groups: [DIM, { name: 'load mode', options: ['tile', 'tile::scatter4', 'im2col_no_offs'] }, BULK_GROUP, L2_HINT],
    spaces: [{ name: 'destination state space', options: ['global'], required: true }, { name: 'source state space', options: ['shared::cta'], required: true }],
  },
  {
    base: 'cp.async.bulk.prefetch.tensor',
    groups: [DIM, { name: 'level', options: ['L2'], required: true }, LOAD_MODE, L2_HINT],
    spaces: [{ name: 'source state space', options: ['global'], required: true }],
  },
  // fence (9.7.13.4): the mbarrier-init and async-proxy forms.
  { base: 'fence.mbarrier_init', groups: [{ name: 'sem', options: ['release'], required: true }, { name: 'scope', options: ['cluster'], required: true }] },
  { base: 'fence.proxy.async', groups: [], spaces: [{ name: 'state space', options: ['shared::cta', 'shared::cluster', 'global'], required: false }] },
  {
    base: 'fence.proxy.async::generic',
    groups: [
      { name: 'sem', options: ['release', 'acquire'], required: true },
      { name: 'restriction', options: ['sync_restrict::shared::cta', 'sync_restrict::shared::cluster'], required: true },
      { name: 'scope', options: ['cluster'], required: true },
    ],
  },
  // tcgen05 (9.7.16.x).
  {
    base: 'tcgen05.commit',
    groups: [
      { name: 'CTA group', options: ['cta_group::1', 'cta_group::2'], required: true },
      { name: 'completion mechanism', options: ['mbarrier::arrive::one'], required: true },
      MULTICAST,
      B64,
    ],
    spaces: [{ name: 'state space', options: ['shared::cluster'], required: false }],
  },
  { base: 'tcgen05.fence::before_thread_sync', groups: [] },
  { base: 'tcgen05.fence::after_thread_sync', groups: [] },
  // barrier.cluster (9.7.13.3).
  { base: 'barrier.cluster.arrive', groups: [RELEASE_SEM, { name: 'aligned', options: ['aligned'] }] },
  { base: 'barrier.cluster.wait', groups: [{ name: 'sem', options: ['acquire'] }, { name: 'aligned', options: ['aligned'] }] },
];

/** Instruction families this table covers completely: a mnemonic in one of them that no form accepts is undefined. */
const FAMILY_PREFIXES = ['mbarrier.', 'cp.async.', 'fence.mbarrier_init', 'fence.proxy.async', 'tcgen05.commit', 'tcgen05.fence', 'barrier.cluster'];

const STATE_SPACES = new Set(['shared', 'shared::cta', 'shared::cluster', 'global']);

/** What is wrong with one written instruction, or undefined when the ISA defines it (or it is outside the covered families). */
export function checkPtxBarrierInstruction(mnemonic: string, operands: readonly string[]): string | undefined {
  const family = FAMILY_PREFIXES.find((p) => mnemonic.startsWith(p));
  if (!family) return misspeltOpcode(mnemonic);
  const candidates = PTX_BARRIER_FORMS.filter((f) => mnemonic === f.base || mnemonic.startsWith(`${f.base}.`));
  if (!candidates.length) return unknownInstruction(mnemonic);
  const longest = Math.max(...candidates.map((f) => f.base.length));
  const forms = candidates.filter((f) => f.base.length === longest);
  const problems = forms.map((f) => problemWith(f, mnemonic, operands));
  if (problems.some((p) => p === undefined)) return undefined;
  return problems[0];
}

function problemWith(form: PtxForm, mnemonic: string, operands: readonly string[]): string | undefined {
  const qualifiers = mnemonic.slice(form.base.length).split('.').filter(Boolean);
  const taken = new Map<string, string>();
  const spaces: string[] = [];
  for (const q of qualifiers) {
    if (STATE_SPACES.has(q) && form.spaces) {
      spaces.push(q);
      continue;
    }
    const group = form.groups.find((g) => g.options.includes(q));
    if (!group) {
      // Longer instruction names continue this one (`cp.async.bulk` → `.tensor`): a misspelling may be of those.
      const longer = PTX_BARRIER_FORMS.filter((f) => f.base.startsWith(`${form.base}.`)).map((f) => f.base.slice(form.base.length + 1).split('.')[0]);
      const known = [...form.groups.flatMap((g) => g.options), ...(form.spaces ?? []).flatMap((s) => s.options), ...longer];
      const near = nearest(q, known);
      const after = form.groups.length || form.spaces?.length ? '' : ' (it takes no qualifiers)';
      return `\`.${q}\` is not a qualifier of \`${form.base}\`${after}${near ? ` (did you mean \`.${near}\`?)` : ''}`;
    }
    if (taken.has(group.name)) return `\`${form.base}\` takes one ${group.name} qualifier, here \`.${taken.get(group.name)}\` and \`.${q}\``;
    taken.set(group.name, q);
  }
  // The im2col modes address 3 to 5 dimensions (ISA: "im2col ... .3d, .4d, .5d").
  const mode = taken.get('load mode');
  if (mode?.startsWith('im2col') && /^[12]d$/.test(taken.get('dimension') ?? '')) return `\`.${mode}\` needs a tensor of 3 to 5 dimensions, not \`.${taken.get('dimension')}\``;
  for (const g of form.groups) if (g.required && !taken.has(g.name)) return `\`${form.base}\` needs its ${g.name} qualifier (${g.options.map((o) => `\`.${o}\``).join(' or ')})`;
  const slots = form.spaces ?? [];
  if (spaces.length > slots.length) return `\`${form.base}\` takes ${slots.length === 0 ? 'no state space' : `${slots.length} state space${slots.length > 1 ? 's' : ''}`}, here ${spaces.map((s) => `\`.${s}\``).join(', ')}`;
  for (let i = 0; i < slots.length; i++) {
    const s = spaces[i];
    if (s === undefined) {
      if (slots[i].required) return `\`${form.base}\` needs its ${slots[i].name} (${slots[i].options.map((o) => `\`.${o}\``).join(' or ')})`;
      continue;
    }
    if (!slots[i].options.includes(s)) return `\`.${s}\` is not a valid ${slots[i].name} of \`${form.base}\` (${slots[i].options.map((o) => `\`.${o}\``).join(' or ')})`;
  }
  if (form.together) {
    const [a, b] = form.together;
    if (taken.has(a) !== taken.has(b)) {
      const [has, lacks] = taken.has(a) ? [a, b] : [b, a];
      return `\`${form.base}\` with the ${has} qualifier \`.${taken.get(has)}\` also needs a ${lacks} qualifier (${form.groups.find((g) => g.name === lacks)?.options.map((o) => `\`.${o}\``).join(' or ')})`;
    }
  }
  if (form.sinkWith && spaces.includes(form.sinkWith) && operands[0] !== undefined && operands[0] !== '_') {
    return `\`${form.base}\` on a \`.${form.sinkWith}\` barrier returns no state: its destination must be the sink \`_\`, not \`${operands[0]}\``;
  }
  return undefined;
}

function unknownInstruction(mnemonic: string): string {
  const bases = [...new Set(PTX_BARRIER_FORMS.map((f) => f.base))];
  // Compare against base names cut to as many dot-separated parts as the written name has before its qualifiers.
  const parts = mnemonic.split('.');
  let best: string | undefined;
  for (let n = parts.length; n >= 2 && !best; n--) best = nearest(parts.slice(0, n).join('.'), bases);
  return `\`${mnemonic}\` is not a PTX instruction${best ? ` (did you mean \`${best}\`?)` : ''}`;
}

/** Opcodes a few edits away from `mbarrier` that are PTX opcodes in their own right. */
const OTHER_OPCODES = new Set(['barrier', 'membar', 'bar']);

function misspeltOpcode(mnemonic: string): string | undefined {
  const opcode = mnemonic.split('.')[0];
  if (OTHER_OPCODES.has(opcode) || opcode === 'mbarrier' || editDistance(opcode, 'mbarrier') > 2 || opcode.length < 6) return undefined;
  return unknownInstruction(`mbarrier${mnemonic.slice(opcode.length)}`).replace(/^`[^`]*`/, `\`${mnemonic}\``);
}

function nearest(word: string, options: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const o of options) {
    const d = editDistance(word, o);
    if (d < bestDistance) [best, bestDistance] = [o, d];
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}
