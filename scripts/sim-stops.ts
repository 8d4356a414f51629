// Measures where the simulator's C++ compiler stops on real device code: compiles every device function
// (and every member function of the structs) defined in a set of real headers from local checkouts, and
// counts the "not supported" / compile errors by construct. Template parameters without defaults are bound
// to `float` (types) and 1 (values), which is how far a wrapper can be driven without a caller.
// Run: PHASEFLIP_CORPUS=/path/to/checkouts npx vite-node scripts/sim-stops.ts [--verbose] [--filter WORD]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Project } from '../core/project/project';
import { loadCudaLanguage, Parser, parseWhole, type SyntaxNode } from '../core/lang/cuda/parser';
import { fileOf, registerHeaderTree } from '../core/lang/cuda/syntax-nodes';
import { buildCudaUnit } from '../core/lang/cuda/unit';
import { Compiler, FnCx } from '../core/lang/cuda/sim/compile';
import { applyDefaults, spellArgs, templateParams, templateScope, type TemplateBinding } from '../core/lang/cuda/sim/templates';
import type { FnDecl } from '../core/lang/cuda/sim/context';
import { SimError } from '../core/sim/machine';

const corpus = process.env.PHASEFLIP_CORPUS;
if (!corpus) {
  console.log('set PHASEFLIP_CORPUS to a folder holding cutlass/, DeepGEMM/, ThunderKittens/, flash-attention/, DeepEP/');
  process.exit(2);
}
const verbose = process.argv.includes('--verbose');
const fi = process.argv.indexOf('--filter');
const filter = fi > 0 ? process.argv[fi + 1] : undefined;

const cutlassInc = path.join(corpus, 'cutlass/include');
interface Target { file: string; include: string[] }
const targets: Target[] = [];
const add = (dir: string, re: RegExp, include: string[], depth = 1) => {
  const walk = (d: string, lvl: number) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && lvl < depth) walk(p, lvl + 1);
      else if (e.isFile() && re.test(e.name)) targets.push({ file: p, include });
    }
  };
  walk(dir, 1);
};
add(path.join(cutlassInc, 'cute/arch'), /^(?!.*(_ext|_sparse)).*\.hpp$/, [cutlassInc]); // the _ext/_sparse parts are included by their main header
add(path.join(corpus, 'DeepGEMM/deep_gemm/include/deep_gemm'), /^(sm90|utils|tma|wgmma|ld_st|math|types|tma_copy|gemm|transform)\w*\.cuh$/, [path.join(corpus, 'DeepGEMM/deep_gemm/include'), cutlassInc], 2);
add(path.join(corpus, 'ThunderKittens/include/ops/group/memory/tile'), /\.cuh$/, [path.join(corpus, 'ThunderKittens/include')]);
add(path.join(corpus, 'ThunderKittens/include/ops/thread/memory'), /\.cuh$/, [path.join(corpus, 'ThunderKittens/include')], 2);
add(path.join(corpus, 'ThunderKittens/include/common'), /\.cuh$/, [path.join(corpus, 'ThunderKittens/include')]);
add(path.join(corpus, 'flash-attention/hopper'), /^(utils|named_barrier|barrier|seqlen|block|softmax|mask|rotary|pack_gqa|sm90_pipeline_no_cluster)\.h$/, [path.join(corpus, 'flash-attention/hopper'), cutlassInc]);
add(path.join(corpus, 'DeepEP/csrc/kernels'), /\.cuh$/, [path.join(corpus, 'DeepEP/csrc/kernels')]);

const counts = new Map<string, number>();
const examples = new Map<string, string>();
let compiled = 0;
let stopped = 0;

/** The construct a stop names, with the specifics (names, numbers, locations) taken out. */
function construct(msg: string): string {
  let m = msg.replace(/ \(not defined in this translation unit[^)]*\)/, '').replace(/ at .*$/s, '');
  m = m.replace(/^not supported by the simulator: /, '');
  if (/^base class /.test(m)) return m.replace(/'[^']*'/g, "'…'").replace(/ of \S+/, ' of …').replace(/\(.*$/, '').trim();
  const trait = /\b(?:std|cute|cuda::std)::(\w+)/.exec(m) ?? /'((?:is|remove|add|conditional|enable_if|decay|integral_constant|bool_constant|true_type|false_type|declval|common_type|underlying_type|make_(?:un)?signed)\w*)[<']/.exec(m);
  if (trait) return `std-like ${trait[1]}`;
  const ty = /^(type|call to|unknown name|unknown identifier|class template) '([^'<(]*)/.exec(m);
  if (ty) return `${ty[1]} '${ty[2].replace(/\d+/g, 'N')}…'`;
  return m.replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N');
}

async function main() {
  const language = await loadCudaLanguage();
  const parser = new Parser();
  parser.setLanguage(language);
  for (const t of targets) {
    if (filter && !t.file.includes(filter)) continue;
    const text = fs.readFileSync(t.file, 'utf8');
    let unit;
    try {
      unit = buildCudaUnit(text, t.file, new Project({ explicit: { includeDirs: t.include } }), undefined);
    } catch (e) {
      console.log(`${t.file}: front end failed: ${e}`);
      continue;
    }
    const roots: SyntaxNode[] = [];
    for (const h of unit.deviceHeaders()) {
      const tree = parseWhole(parser, h.pre.parseText);
      if (!tree) continue;
      registerHeaderTree(tree, h.path);
      roots.push(tree.rootNode);
    }
    const tree = parseWhole(parser, unit.parseText);
    if (!tree) continue;
    let id = 1;
    const c = new Compiler(tree.rootNode, () => id++, roots);
    c.missingIncludes = unit.tu.missing.filter((m) => !m.angled).map((m) => `"${m.spelling}"`);
    const mine = (n: SyntaxNode) => fileOf(n) === undefined;
    const record = (what: string, run: () => void) => {
      try {
        run();
        compiled++;
      } catch (e) {
        if (!(e instanceof SimError)) {
          const key = `internal ${(e as Error).message?.slice(0, 60)}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          stopped++;
          return;
        }
        stopped++;
        const key = construct(e.message);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        const where = e.loc ? `${e.loc.file ?? t.file}:${(e.loc.line ?? 0) + 1}` : t.file;
        if (!examples.has(key)) examples.set(key, `${what}: ${e.message} @ ${where}`);
        if (verbose) console.log(`${path.relative(corpus!, t.file)} ${what}: ${e.message} @ ${where}`);
      }
    };
    const device = (d: FnDecl) => {
      const body = d.node.childForFieldName('body');
      if (!body) return false;
      const head = d.node.text.slice(0, body.startIndex - d.node.startIndex);
      // Specifier macros (CUTE_HOST_DEVICE) are blanked in the parse text: host-only code is told by what it calls.
      return !/\b(cudaMalloc|cudaLaunch|cuTensorMapEncode|std::vector|printf\(\s*"Error|throw\b|host_|cudaFuncSetAttribute)/.test(d.node.text) && !/__host__\s+(?!__device__)/.test(head);
    };
    const bind = (tparams: SyntaxNode | undefined): TemplateBinding => {
      const b: TemplateBinding = new Map();
      if (!tparams) return b;
      for (const p of templateParams(tparams, c)) {
        if (p.pack) { b.set(`...${p.name}`, 0); continue; }
        // No type at hand satisfies a concept (ThunderKittens' ducks): the function is counted apart.
        if (p.constraint) throw new SimError(`constrained template parameter '${p.name}' (driver has no type satisfying ${p.constraint.concept})`, undefined, 'unsupported');
        if (p.dflt) continue;
        b.set(p.name, p.kind === 'type' ? { k: 'num', dt: 'f32' } : 1);
      }
      return b;
    };
    for (const [, decls] of c.functions) for (const d of decls) {
      if (!mine(d.node) || !device(d) || d.owner) continue;
      record(d.name, () => {
        const b = bind(d.tparams);
        if (d.tparams) applyDefaults(c, templateParams(d.tparams, c), b, d.node);
        c.instantiate(d, b, d.node);
      });
    }
    const file = new FnCx('<file>', null, new Map(), undefined, { line: 0 });
    file.scopes = [c.fileScope];
    c.prepareFileScope();
    // Class templates: parameters without defaults bound as for functions (types float, values 1).
    for (const [name, node] of c.templateStructs) {
      if (!mine(node) || !name || name.includes('<')) continue;
      const list = node.parent?.childForFieldName('parameters');
      if (!list) continue;
      let def;
      try {
        const params = templateParams(list, c);
        const b = bind(list);
        applyDefaults(c, params, b, node);
        const args = params.flatMap((p) => (p.pack ? [] : [b.get(p.name)!]));
        def = c.structs.get(`${name}<${spellArgs(args)}>`) ?? c.defineStruct(file, node, `${name}<${spellArgs(args)}>`, { name, args, members: templateScope(c, params, b) });
      } catch (e) {
        record(`struct ${name}<…>`, () => { throw e; });
        continue;
      }
      for (const [mname, ms] of def.methods) for (const m of ms as FnDecl[]) {
        if (!device(m)) continue;
        record(`${name}<…>::${mname}`, () => c.instantiate(m, bind(m.tparams), m.node));
      }
    }
    for (const [name, node] of c.lazyStructs) {
      if (!mine(node) || !name) continue;
      let def;
      try {
        def = c.structDef(file, name, node);
      } catch (e) {
        record(`struct ${name}`, () => { throw e; });
        continue;
      }
      if (!def) continue;
      for (const [mname, ms] of def.methods) for (const m of ms as FnDecl[]) {
        if (!device(m)) continue;
        record(`${name}::${mname}`, () => c.instantiate(m, bind(m.tparams), m.node));
      }
    }
  }
  console.log(`targets ${targets.filter((t) => !filter || t.file.includes(filter)).length}, functions compiled ${compiled}, stopped ${stopped}`);
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${String(v).padStart(5)}  ${k}${verbose ? '' : `\n       e.g. ${examples.get(k)?.slice(0, 220)}`}`);
}
main();
