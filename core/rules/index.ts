// Registry of all rules, sorted by id. A test checks that every file in this folder is listed.
import { arrivalCountMismatch } from './arrival-count-mismatch';
import { arrivalOnOnePath } from './arrival-on-one-path';
import { bulkCopyWithoutExpectTx } from './bulk-copy-without-expect-tx';
import { cpAsyncWithoutBarrierArrive } from './cp-async-without-barrier-arrive';
import { earlyExitWithoutDrop } from './early-exit-without-drop';
import { expectTxByteMismatch } from './expect-tx-byte-mismatch';
import { initByManyThreads } from './init-by-many-threads';
import { initNotVisible } from './init-not-visible';
import { missingBootstrapArrival } from './missing-bootstrap-arrival';
import { mmaWithoutCommitArrive } from './mma-without-commit-arrive';
import { parityFlipOffRingSchedule } from './parity-flip-off-ring-schedule';
import { parityNeverFlips } from './parity-never-flips';
import { staleOrMovedToken } from './stale-or-moved-token';
import { tokenFromOtherBarrier } from './token-from-other-barrier';
import type { RuleDef } from './types';
import { useBeforeInit } from './use-before-init';
import { waitResultDiscarded } from './wait-result-discarded';
import { waitSlotReadMismatch } from './wait-slot-read-mismatch';

export const RULES: RuleDef[] = [
  arrivalCountMismatch,
  arrivalOnOnePath,
  bulkCopyWithoutExpectTx,
  cpAsyncWithoutBarrierArrive,
  earlyExitWithoutDrop,
  expectTxByteMismatch,
  initByManyThreads,
  initNotVisible,
  missingBootstrapArrival,
  mmaWithoutCommitArrive,
  parityFlipOffRingSchedule,
  parityNeverFlips,
  staleOrMovedToken,
  tokenFromOtherBarrier,
  useBeforeInit,
  waitResultDiscarded,
  waitSlotReadMismatch,
];

export function ruleByIdOrCode(key: string): RuleDef | undefined {
  return RULES.find((r) => r.meta.id === key || r.meta.code === key);
}
