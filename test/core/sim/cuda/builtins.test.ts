// The CUDA simulator's builtin tables: every name is served by one group, blocking builtins are
// simulated, and the enumerable lists (SIMULATED_BUILTINS, SIMULATED_METHODS) name the barrier APIs
// the catalogue parity test compares against.
import { describe, expect, it } from 'vitest';
import { ASYNC_COPY_BUILTINS } from '../../../../core/lang/cuda/sim/async-copy-builtins';
import { BARRIER_BUILTINS } from '../../../../core/lang/cuda/sim/barrier-builtins';
import { BLOCKING_BUILTINS, FREE_BUILTINS, isKnownPure, SIMULATED_BUILTINS as BUILTIN_NAMES, SIMULATED_METHODS as METHOD_NAMES } from '../../../../core/lang/cuda/sim/builtins';
import { DIAGNOSTIC_BUILTINS } from '../../../../core/lang/cuda/sim/diagnostic-builtins';
import { IDENTITY_BUILTINS, MATH_BUILTINS } from '../../../../core/lang/cuda/sim/math-builtins';
import { MEMORY_BUILTINS } from '../../../../core/lang/cuda/sim/memory-builtins';
import { PIPELINE_BUILTINS } from '../../../../core/lang/cuda/sim/pipeline-builtins';
import { SYNC_BUILTINS } from '../../../../core/lang/cuda/sim/sync-builtins';
import { TENSOR_COPY_BUILTINS } from '../../../../core/lang/cuda/sim/tensor-copy-builtins';
import { VECTOR_BUILTINS } from '../../../../core/lang/cuda/sim/vector-builtins';

const SIMULATED_BUILTINS = new Set(BUILTIN_NAMES);
const SIMULATED_METHODS = new Set(METHOD_NAMES);
const GROUPS = { MATH_BUILTINS, VECTOR_BUILTINS, IDENTITY_BUILTINS, SYNC_BUILTINS, MEMORY_BUILTINS, DIAGNOSTIC_BUILTINS, BARRIER_BUILTINS, ASYNC_COPY_BUILTINS, TENSOR_COPY_BUILTINS, PIPELINE_BUILTINS };

describe('CUDA simulator builtins', () => {
  it('serves every name from exactly one group', () => {
    const owner = new Map<string, string>();
    const twice: string[] = [];
    for (const [group, table] of Object.entries(GROUPS))
      for (const name of Object.keys(table)) {
        if (owner.has(name)) twice.push(`${name}: ${owner.get(name)} and ${group}`);
        owner.set(name, group);
      }
    expect(twice).toEqual([]);
    // The dispatch table is the groups plus cg::sync (which forwards to the group's sync()).
    expect([...FREE_BUILTINS.keys()].sort()).toEqual([...owner.keys(), 'sync'].sort());
  });

  it('simulates every builtin it hoists as blocking, and never calls a blocking one pure', () => {
    expect([...BLOCKING_BUILTINS].filter((name) => !SIMULATED_BUILTINS.has(name))).toEqual([]);
    expect([...BLOCKING_BUILTINS].filter((name) => isKnownPure(name))).toEqual([]);
  });

  it('lists the barrier APIs it simulates, free functions by name and members qualified by type', () => {
    for (const name of [
      'init',
      'barrier_arrive_tx',
      'barrier_expect_tx',
      'barrier_native_handle',
      'memcpy_async',
      'memcpy_async_tx',
      'mbarrier_init',
      'mbarrier_arrive',
      'mbarrier_arrive_expect_tx',
      'mbarrier_try_wait_parity',
      'mbarrier_test_wait',
      'cp_async_bulk',
      'cp_async_bulk_wait_group_read',
      '__mbarrier_init',
      '__mbarrier_arrive_and_drop',
      '__mbarrier_try_wait_parity',
      '__pipeline_wait_prior',
      '__syncthreads',
    ])
      expect(SIMULATED_BUILTINS.has(name), name).toBe(true);
    for (const name of ['mbarrier_inval', '__mbarrier_pending_count']) expect(SIMULATED_BUILTINS.has(name), name).toBe(false);
    expect(SIMULATED_BUILTINS.has('cp_async_bulk_tensor'), 'tensor TMA is simulated').toBe(true);
    for (const name of ['arrive', 'arrive_and_drop', 'wait', 'try_wait', 'wait_parity', 'try_wait_parity', 'arrive_and_wait'])
      expect(SIMULATED_METHODS.has(`cuda::barrier::${name}`), name).toBe(true);
    expect(SIMULATED_METHODS.has('cooperative_groups::thread_block::sync')).toBe(true);
  });

  it('knows every spelling of a one-argument math function, and nothing from the JS object prototype', () => {
    for (const name of ['sqrt', 'sqrtf', '__sqrtf', 'sqrtf_rn', '__expf_rz', 'erf', 'erff']) expect(SIMULATED_BUILTINS.has(name), name).toBe(true);
    for (const name of ['constructor', 'constructorf', 'toString', '__proto__']) expect(SIMULATED_BUILTINS.has(name), name).toBe(false);
  });
});
