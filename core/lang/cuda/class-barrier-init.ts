// Library classes that initialise barriers in one member and arrive on them from other CTAs in others (CUTLASS
// pipelines, read from a header linted alone): what each member reaches through its calls, from the inline PTX of
// the unit's functions, so that rule init-not-visible can ask whether the initialising member fences.
import type { ClassBarrierInit } from '../../ir/types';
import type { SyntaxNode } from './parser';
import { asmStringIsLiteral, asmStringText, readPtxLines } from './ptx';
import type { FnDef, FunctionLookup } from './scan';
import { field, named, rangeOf, unqualified } from './syntax-nodes';

/**
 * What a function does to barriers, through its calls included. `init` and `fence` hold when some overload a call
 * may resolve to has them (the rule then stays silent on a fence it cannot place); `remote` only when every overload
 * does, so an ambiguous call never makes a class a cross-CTA user.
 */
interface Effects {
  init: boolean;
  fence: boolean;
  remote: boolean;
}

const NONE: Effects = { init: false, fence: false, remote: false };
const MAX_DEPTH = 8;
/** A call resolving to more overloads than this is not followed (a name every library defines). */
const MAX_CANDIDATES = 12;

class EffectReader {
  private readonly memo = new Map<FnDef, Effects>();
  constructor(private readonly lookup: FunctionLookup) {}

  of(fn: FnDef, depth = 0): Effects {
    const known = this.memo.get(fn);
    if (known) return known;
    // Recursion and depth end at "nothing known", which keeps `remote` false.
    this.memo.set(fn, NONE);
    if (depth > MAX_DEPTH) return NONE;
    const out = ownEffects(fn.body);
    for (const call of fn.body.descendantsOfType('call_expression')) {
      if (!call) continue;
      const e = this.ofCall(call, fn, depth);
      if (e) merge(out, e);
    }
    this.memo.set(fn, out);
    return out;
  }

  /** The effects of one call: may-effects over its candidate overloads, must-effects shared by all of them. */
  ofCall(call: SyntaxNode, caller: FnDef, depth: number): Effects | undefined {
    const candidates = this.candidates(call, caller);
    if (!candidates.length || candidates.length > MAX_CANDIDATES) return undefined;
    const all = candidates.map((c) => this.of(c, depth + 1));
    return {
      init: all.some((e) => e.init),
      fence: all.some((e) => e.fence),
      remote: all.every((e) => e.remote),
    };
  }

  /** The functions of the unit a call may resolve to: by name and argument count, by class when the call says it. */
  candidates(call: SyntaxNode, caller: FnDef): FnDef[] {
    let callee = field(call, 'function');
    if (!callee) return [];
    const argc = named(field(call, 'arguments')).filter((a) => a.type !== 'comment').length;
    let receiverClass: string | undefined;
    const throughObject = callee.type === 'field_expression';
    if (throughObject) {
      receiverClass = receiverType(field(callee, 'argument'), caller);
      callee = field(callee, 'field');
    }
    if (!callee) return [];
    let scope: string | undefined;
    if (callee.type === 'qualified_identifier') {
      scope = unqualified((field(callee, 'scope')?.text ?? '').replace(/<.*$/s, ''));
      while (callee?.type === 'qualified_identifier') callee = field(callee, 'name');
    }
    if (callee?.type === 'template_function') callee = field(callee, 'name');
    if (!callee || (callee.type !== 'identifier' && callee.type !== 'field_identifier')) return [];
    const fits = ((this.lookup.everywhere ?? this.lookup.get).call(this.lookup, callee.text) ?? []).filter((d) => d !== caller && d.params.length >= argc && d.params.filter((p) => !p.hasDefault).length <= argc);
    const ofClass = (cls: string | undefined) => (cls ? fits.filter((d) => (d.memberOf ?? classNameOf(d.node)) === cls) : []);
    let narrowed = ofClass(scope).length ? ofClass(scope) : ofClass(receiverClass);
    if (!narrowed.length) narrowed = fits;
    if (throughObject && narrowed.some((d) => !isStatic(d))) narrowed = narrowed.filter((d) => !isStatic(d));
    return narrowed;
  }
}

function merge(into: Effects, e: Effects): void {
  into.init ||= e.init;
  into.fence ||= e.fence;
  into.remote ||= e.remote;
}

/** What the literal inline PTX of a body does (PTX ISA 9.7.13.15 mbarrier, 9.7.13.4 fence). */
function ownEffects(body: SyntaxNode): Effects {
  const out = { ...NONE };
  for (const asm of body.descendantsOfType('gnu_asm_expression')) {
    const code = asm?.childForFieldName('assembly_code');
    if (!code || !asmStringIsLiteral(code)) continue;
    for (const line of readPtxLines(asmStringText(code))) {
      const m = line.mnemonic;
      if (m.startsWith('mbarrier.init')) out.init = true;
      else if (m.startsWith('fence.mbarrier_init') || m.startsWith('fence.proxy.async')) out.fence = true;
      // An arrive on `.shared::cluster` addresses a barrier of another CTA (after mapa). Transaction barriers of one
      // CTA are not judged: CCCL and ThunderKittens order their init for TMA with a block sync alone.
      else if (m.startsWith('mbarrier.arrive') && /\.shared::cluster\b/.test(m)) out.remote = true;
    }
  }
  return out;
}

/** The class of a member call's receiver (`full_barrier_ptr_[stage].`), read from the caller's class: field type, then `using` alias. */
function receiverType(receiver: SyntaxNode | null, caller: FnDef): string | undefined {
  while (receiver && (receiver.type === 'subscript_expression' || receiver.type === 'parenthesized_expression' || receiver.type === 'pointer_expression')) receiver = named(receiver)[0] ?? null;
  if (receiver?.type === 'field_expression' && field(receiver, 'argument')?.type === 'this') receiver = field(receiver, 'field');
  if (!receiver || (receiver.type !== 'identifier' && receiver.type !== 'field_identifier')) return undefined;
  const cls = classNodeOf(caller.node);
  const body = cls ? field(cls, 'body') : null;
  if (!body) return undefined;
  let type: string | undefined;
  for (const d of body.descendantsOfType('field_declaration')) {
    if (d && d.descendantsOfType('field_identifier').some((f) => f?.text === receiver!.text)) type = field(d, 'type')?.text;
  }
  if (!type) return undefined;
  type = unqualified(type.replace(/<.*$/s, ''));
  for (const a of body.descendantsOfType('alias_declaration')) {
    if (a && field(a, 'name')?.text === type) return unqualified((field(a, 'type')?.text ?? type).replace(/<.*$/s, '').trim());
  }
  return type;
}

function classNameOf(n: SyntaxNode): string | undefined {
  const cls = classNodeOf(n);
  const name = cls ? field(cls, 'name') : null;
  return name?.type === 'type_identifier' ? name.text : undefined;
}

/** A `static` member function: a call through an object (`x.f()`) names it only by accident. */
function isStatic(fn: FnDef): boolean {
  return fn.node.children.some((c) => c?.type === 'storage_class_specifier' && c.text === 'static');
}

function classNodeOf(n: SyntaxNode): SyntaxNode | undefined {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'class_specifier' || p.type === 'struct_specifier') return p;
  return undefined;
}

/**
 * The document's classes whose members initialise barriers without fencing the initialisation while other members
 * arrive on them from another CTA: one entry per initialising call (the call that reaches `mbarrier.init` from a
 * member, through a function outside the class).
 */
export function classBarrierInits(fns: readonly FnDef[], lookup: FunctionLookup): ClassBarrierInit[] {
  const byClass = new Map<string, FnDef[]>();
  for (const fn of fns) {
    // A member template (`template <class S> static void init_barriers(...)`) is scanned without its class.
    const cls = fn.file ? undefined : (fn.memberOf ?? classNameOf(fn.node));
    if (cls) byClass.set(cls, [...(byClass.get(cls) ?? []), fn]);
  }
  const reader = new EffectReader(lookup);
  const out: ClassBarrierInit[] = [];
  for (const [className, members] of byClass) {
    // A lexical test first: most classes never mention barriers.
    if (!members.some((m) => /init/.test(m.body.text))) continue;
    const effects = members.map((m) => reader.of(m));
    const initialising = members.filter((_, i) => effects[i].init);
    if (!initialising.length || initialising.some((m) => reader.of(m).fence)) continue;
    const user = members.find((_, i) => effects[i].remote && !effects[i].init);
    if (!user) continue;
    for (const m of initialising) {
      for (const call of m.body.descendantsOfType('call_expression')) {
        if (!call) continue;
        const candidates = reader.candidates(call, m);
        // Calls to the class's own members are reported where that member initialises.
        if (candidates.some((c) => (c.memberOf ?? classNameOf(c.node)) === className)) continue;
        if (!reader.ofCall(call, m, 0)?.init) continue;
        out.push({ className, init: rangeOf(call), use: rangeOf(user.nameNode), useName: user.name });
      }
    }
  }
  return out;
}
