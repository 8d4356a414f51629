// Registry of all rules, sorted by id. A test checks that every file in this folder is listed.
import { arrivalCountMismatch } from './arrival-count-mismatch';
import { arrivalOnOnePath } from './arrival-on-one-path';
import { bulkCopyWithoutExpectTx } from './bulk-copy-without-expect-tx';
import { cpAsyncWithoutBarrierArrive } from './cp-async-without-barrier-arrive';
import { earlyExitWithoutDrop } from './early-exit-without-drop';
import { eventAtModulo } from './event-at-modulo';
import { eventDoubleCredit } from './event-double-credit';
import { eventWaitedNeverTriggered } from './event-waited-never-triggered';
import { expectTxByteMismatch } from './expect-tx-byte-mismatch';
import { futureNeverWaited } from './future-never-waited';
import { futureReadBeforeWait } from './future-read-before-wait';
import { futureRotationMismatch } from './future-rotation-mismatch';
import { initByManyThreads } from './init-by-many-threads';
import { initNotVisible } from './init-not-visible';
import { missingBootstrapArrival } from './missing-bootstrap-arrival';
import { mmaWithoutCommitArrive } from './mma-without-commit-arrive';
import { parityFlipOffRingSchedule } from './parity-flip-off-ring-schedule';
import { parityNeverFlips } from './parity-never-flips';
import { removedSyncSyntax } from './removed-sync-syntax';
import { slotReleasedBeforeMmaCommit } from './slot-released-before-mma-commit';
import { staleOrMovedToken } from './stale-or-moved-token';
import { tokenFromOtherBarrier } from './token-from-other-barrier';
import { tripCountMismatch } from './trip-count-mismatch';
import { useBeforeInit } from './use-before-init';
import { waitResultDiscarded } from './wait-result-discarded';
import { waitSlotReadMismatch } from './wait-slot-read-mismatch';
import type { RuleDef } from './types';

export const RULES: RuleDef[] = [
  arrivalCountMismatch,
  arrivalOnOnePath,
  bulkCopyWithoutExpectTx,
  cpAsyncWithoutBarrierArrive,
  earlyExitWithoutDrop,
  eventAtModulo,
  eventDoubleCredit,
  eventWaitedNeverTriggered,
  expectTxByteMismatch,
  futureNeverWaited,
  futureReadBeforeWait,
  futureRotationMismatch,
  initByManyThreads,
  initNotVisible,
  missingBootstrapArrival,
  mmaWithoutCommitArrive,
  parityFlipOffRingSchedule,
  parityNeverFlips,
  removedSyncSyntax,
  slotReleasedBeforeMmaCommit,
  staleOrMovedToken,
  tokenFromOtherBarrier,
  tripCountMismatch,
  useBeforeInit,
  waitResultDiscarded,
  waitSlotReadMismatch,
];

export function ruleByIdOrCode(key: string): RuleDef | undefined {
  return RULES.find((r) => r.meta.id === key || r.meta.code === key);
}
