// Hover provider: API docs for barrier calls and PTX mnemonics inside asm strings, the inferred
// protocol of a barrier variable (init count, who arrives and waits where, ring size), and on a
// kernel's name the launch shape its analysis used (block, grid, cluster, shared memory) and where each came from.
import type { HoverInfo, Position, Range } from '../../api';
import { barrierProtocol } from '../../analysis/barrier-protocol';
import { analysedBlockSizes, KernelFacts } from '../../analysis/facts';
import type { Kernel, KernelModule, LaunchShape } from '../../ir/types';
import { rangeOf } from './syntax-nodes';
import type { SyntaxNode } from './parser';
import { isKernelLaunch } from './launch-sites';
import { findApiDoc, findMemberDoc, findPtxDoc, renderApiDoc } from './doc-lookup';

/** `moduleOf` gives the lowered file, asked for only by hovers that need it (kernels, barriers, member calls). */
export function hoverCuda(node: SyntaxNode | null, text: string, position: Position, moduleOf: () => KernelModule): HoverInfo | null {
  if (!node) return null;
  // Inside an asm string: the PTX instruction under the cursor.
  const asmString = ancestor(node, (n) => n.type === 'string_literal' && n.parent?.type === 'gnu_asm_expression' && n.parent.childForFieldName('assembly_code')?.id === n.id)
    ?? ancestor(node, (n) => n.type === 'concatenated_string' && n.parent?.type === 'gnu_asm_expression');
  if (asmString) return ptxHover(text, position);

  if (!/identifier$/.test(node.type)) return null;
  const name = node.text;
  // Member call: `bar.arrive()`, `full[s]->wait(ph)`.
  const parent = node.parent;
  if (node.type === 'field_identifier' && parent?.type === 'field_expression') {
    const doc = findMemberDoc(name, receiverType(parent, moduleOf()));
    if (doc) return { markdown: renderApiDoc(doc), range: rangeOf(node) };
  }
  // Qualified call: `cuda::ptx::mbarrier_arrive`.
  let full = name;
  let span: SyntaxNode = node;
  for (let p = node.parent; p && p.type === 'qualified_identifier'; p = p.parent) {
    full = p.text.replace(/\s+/g, '');
    span = p;
  }
  const isCallee = callOf(span) !== undefined;
  const doc = findApiDoc(full);
  if (doc && (isCallee || /__syncthreads|__syncwarp|barrier|mbarrier|arrival_token|__mbarrier/.test(full))) {
    return { markdown: renderApiDoc(doc), range: rangeOf(span) };
  }
  // A kernel's name, where it is defined or launched: the block size its analysis used.
  const module = moduleOf();
  const kernel = module.kernels.find((k) => k.name === name && (sameStart(k.nameRange, rangeOf(node)) || isLaunched(node)));
  if (kernel) return { markdown: kernelShape(kernel, module), range: rangeOf(node) };
  // A barrier variable: its inferred protocol.
  const protocol = barrierProtocol(module, name, position);
  if (protocol) return { markdown: protocol, range: rangeOf(node) };
  return null;
}

function sameStart(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character;
}

/** Whether `node` names the kernel of a `k<<<grid, block>>>(…)` launch (templated or qualified too). */
function isLaunched(node: SyntaxNode): boolean {
  let callee: SyntaxNode = node;
  while (callee.parent && (callee.parent.type === 'template_function' || callee.parent.type === 'qualified_identifier')) callee = callee.parent;
  const call = callee.parent;
  return !!call && isKernelLaunch(call) && call.childForFieldName('function')?.id === callee.id;
}

function threads(sizes: readonly number[]): string {
  return sizes.length === 1 ? `${sizes[0]} threads` : `${sizes.slice(0, -1).join(', ')} and ${sizes[sizes.length - 1]} threads`;
}

function dim(d: readonly number[]): string {
  return d[1] === 1 && d[2] === 1 ? String(d[0]) : `(${d.join(', ')})`;
}

const API_SPELLING: Record<string, string> = {
  '<<<>>>': '`<<<grid, block>>>`',
  cudaLaunchKernelEx: '`cudaLaunchKernelEx`',
  cudaLaunchKernel: '`cudaLaunchKernel`',
  cudaLaunchCooperativeKernel: '`cudaLaunchCooperativeKernel`',
};

/** What the analysis used for a kernel's launch shape and where each part came from, in words a kernel author can act on. */
function kernelShape(kernel: Kernel, module: KernelModule): string {
  const { sizes, source } = analysedBlockSizes(kernel);
  const shape = kernel.launchShape;
  const head = `**kernel \`${kernel.name}\`**`;
  const lines: string[] = [];
  const sites = shape?.sites ?? [];
  const siteWords = (): string => {
    const launched = sites.filter((s) => s.block);
    const apis = [...new Set(launched.map((s) => API_SPELLING[s.api] ?? s.api))];
    const at = launched.map((s) => s.line + 1);
    return launched.length ? ` (${apis.join(', ')}, line${at.length > 1 ? 's' : ''} ${at.join(', ')})` : ` (\`${kernel.name}<<<grid, block>>>\`)`;
  };
  const many = sizes.length > 1;
  switch (source) {
    case 'comment':
      lines.push(`${head}: analysed at a block of ${threads(sizes)}, from its \`// phaseflip: block=…\` comment.`);
      break;
    case 'launch-site':
      lines.push(`${head}: analysed at a block of ${threads(sizes)}, the size${many ? 's' : ''} its launch${many ? 'es' : ''} in this file use${many ? '' : 's'}${siteWords()}${many ? '; a finding must hold at every one' : ''}.`);
      break;
    case 'setting':
      lines.push(`${head}: analysed at a block of ${threads(sizes)}, from ${settingWords(shape)} (no launch in this file gives a block size Phaseflip can evaluate).`);
      break;
    case 'assert':
      lines.push(`${head}: analysed at a block of ${threads(sizes)}, from the kernel's own check of \`blockDim.x\` (no launch in this file gives a block size Phaseflip can evaluate).`);
      break;
    case 'launch-bounds':
      lines.push(`${head}: analysed at a block of ${threads(sizes)}, from \`__launch_bounds__(${sizes[0]})\` (no launch in this file gives a block size Phaseflip can evaluate).`);
      break;
    case 'candidates': {
      const other = (new KernelFacts(kernel, module, { widen: true }).runs() ?? []).map((r) => r.blockSize).filter((b) => !sizes.includes(b));
      lines.push(
        `${head}: the block size is not known here, so the analysis tries ${threads(sizes)}${other.length ? ` and checks ${threads(other)}` : ''}: what holds at every size is reported as usual, what holds at some only is an information note.`,
      );
      if (shape?.block3) lines.push(`- the block \`${dim(shape.block3)}\` is not one-dimensional, and the analysis models \`threadIdx.x\` only`);
      lines.push(`- set it with a launch in this file (\`${kernel.name}<<<grid, 128>>>\`), the setting \`phaseflip.launch\` (\`{ "${kernel.name}": { "block": 128 } }\`, or \`--launch ${kernel.name}:block=128\`), \`__launch_bounds__(128)\`, \`assert(blockDim.x == 128)\` or a \`// phaseflip: block=128\` comment above the kernel`);
      break;
    }
  }
  if (shape?.grid) {
    const from = shape.gridSource === 'setting' ? settingWords(shape) : shape.gridSource === 'comment' || (shape.source === 'comment' && !sites.some((s) => s.grid)) ? 'the comment' : 'the launch';
    lines.push(`- grid: ${dim(shape.grid)}, from ${from}`);
  }
  if (shape?.cluster) {
    const from = shape.clusterSource === 'cluster-dims' ? '`__cluster_dims__`' : shape.clusterSource === 'comment' ? 'the `// phaseflip:` comment' : shape.clusterSource === 'setting' ? settingWords(shape) : 'the launch attribute `cudaLaunchAttributeClusterDimension`';
    lines.push(`- cluster: (${shape.cluster.join(', ')}), from ${from}`);
  }
  if (shape?.smem !== undefined) lines.push(`- dynamic shared memory: ${shape.smem} bytes`);
  if (shape?.templateArgs?.length) lines.push(`- template arguments: ${shape.templateArgs.map((t) => `${t.name} = ${t.value}`).join(', ')}, from its launch or explicit instantiation`);
  return lines.join('\n');
}

/** Where a launch setting was stated: the editor's `phaseflip.launch` entry, the command line's `--launch` or `.phaseflip.json`. */
function settingWords(shape: LaunchShape | undefined): string {
  const s = shape?.setting;
  if (!s) return 'the launch setting';
  if (s.origin === 'config file') return `\`launch\` in \`.phaseflip.json\` (\`"${s.key}"\`)`;
  return s.origin === 'command line' ? `\`--launch ${s.key}:…\`` : `the setting \`phaseflip.launch\` (\`"${s.key}"\`)`;
}

function ancestor(n: SyntaxNode, pred: (n: SyntaxNode) => boolean): SyntaxNode | undefined {
  for (let p: SyntaxNode | null = n; p; p = p.parent) if (pred(p)) return p;
  return undefined;
}

function callOf(n: SyntaxNode): SyntaxNode | undefined {
  let p = n.parent;
  if (p?.type === 'template_function') p = p.parent;
  return p?.type === 'call_expression' && p.childForFieldName('function') ? p : undefined;
}

function receiverType(fieldExpr: SyntaxNode, module?: KernelModule): string | undefined {
  let base: SyntaxNode | null = fieldExpr.childForFieldName('argument');
  while (base && base.type !== 'identifier') base = base.childForFieldName('argument') ?? base.namedChild(0);
  if (!base || !module) return undefined;
  for (const k of module.kernels) {
    const d = k.decls.get(base.text);
    if (d) return d.type;
  }
  return undefined;
}

function ptxHover(text: string, position: Position): HoverInfo | null {
  const line = text.split('\n')[position.line] ?? '';
  const isTok = (c: string): boolean => /[\w.:]/.test(c);
  let s = position.character;
  let e = position.character;
  while (s > 0 && isTok(line[s - 1])) s--;
  while (e < line.length && isTok(line[e])) e++;
  const token = line.slice(s, e);
  if (!token.includes('.')) return null;
  const doc = findPtxDoc(token);
  if (!doc) return null;
  const range: Range = { start: { line: position.line, character: s }, end: { line: position.line, character: e } };
  return { markdown: renderApiDoc(doc), range };
}
