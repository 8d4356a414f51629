// Human-readable dump of the kernel IR, used by golden tests and `phaseflip ir` debugging.
import { exprKey } from './expr';
import type { BarrierOp, KernelModule, Stmt } from './types';

function op(o: BarrierOp): string {
  const parts: string[] = [o.kind];
  if (o.barrier) parts.push(`bar=${o.barrier.base}${o.barrier.index ? `[${exprKey(o.barrier.index)}]` : ''}`);
  if (o.count) parts.push(`count=${exprKey(o.count)}`);
  if (o.bytes) parts.push(`bytes=${exprKey(o.bytes)}`);
  if (o.parity) parts.push(`parity=${exprKey(o.parity)}`);
  if (o.token) parts.push(`token=${exprKey(o.token)}`);
  if (o.tokenOut) parts.push(`-> ${o.tokenOut}`);
  if (o.result) parts.push(`(${o.result})`);
  if (o.remote) parts.push('(remote)');
  return `${parts.join(' ')}  @${o.range.start.line + 1} via ${o.api}`;
}

function stmts(list: Stmt[], indent: string, out: string[]): void {
  for (const s of list) {
    switch (s.kind) {
      case 'op':
        out.push(`${indent}${op(s.op)}`);
        break;
      case 'if':
        out.push(`${indent}if ${exprKey(s.cond)}`);
        stmts(s.then, indent + '  ', out);
        if (s.else.length) {
          out.push(`${indent}else`);
          stmts(s.else, indent + '  ', out);
        }
        break;
      case 'loop':
        out.push(`${indent}loop${s.var ? ` ${s.var}=${exprKey(s.init)}` : ''}${s.cond ? ` while ${exprKey(s.cond)}` : ''}`);
        stmts(s.body, indent + '  ', out);
        if (s.step?.length) {
          out.push(`${indent}  step:`);
          stmts(s.step, indent + '    ', out);
        }
        break;
      case 'assign':
        out.push(`${indent}${s.declared ? 'let ' : ''}${s.target} ${s.op}${s.value ? ` ${exprKey(s.value)}` : ''}`);
        break;
      case 'sync':
        out.push(`${indent}sync ${s.scope} (${s.api})`);
        break;
      case 'access':
        out.push(`${indent}${s.write ? 'write' : 'read'} ${s.array}[${exprKey(s.index)}]`);
        break;
      default:
        out.push(`${indent}${s.kind}`);
    }
  }
}

export function printModule(m: KernelModule): string {
  const out: string[] = [];
  for (const k of m.kernels) {
    out.push(`kernel ${k.name}(${k.params.join(', ')})`);
    stmts(k.body, '  ', out);
  }
  return out.join('\n');
}
