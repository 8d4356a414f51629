// Registry of all rules, sorted by id. A test checks that every file in checks/ is listed.
import { arrivalCountMismatch } from './checks/arrival-count-mismatch';
import { arrivalOnOnePath } from './checks/arrival-on-one-path';
import { arrivalOnlyWithWork } from './checks/arrival-only-with-work';
import { asmResultBoundToInput } from './checks/asm-result-bound-to-input';
import { barrierInsideCopyDestination } from './checks/barrier-inside-copy-destination';
import { blockSyncInRoleBranch } from './checks/block-sync-in-role-branch';
import { bulkCopyWithoutExpectTx } from './checks/bulk-copy-without-expect-tx';
import { bulkStoreNotWaited } from './checks/bulk-store-not-waited';
import { clusterExitBeforeRemoteArrival } from './checks/cluster-exit-before-remote-arrival';
import { cpAsyncWaitWaitsForNothing } from './checks/cp-async-wait-waits-for-nothing';
import { cpAsyncWithoutBarrierArrive } from './checks/cp-async-without-barrier-arrive';
import { earlyExitWithoutDrop } from './checks/early-exit-without-drop';
import { eventAtModulo } from './checks/event-at-modulo';
import { eventDoubleCredit } from './checks/event-double-credit';
import { eventWaitedNeverTriggered } from './checks/event-waited-never-triggered';
import { expectTxByteMismatch } from './checks/expect-tx-byte-mismatch';
import { expectTxWithoutCopy } from './checks/expect-tx-without-copy';
import { futureNeverWaited } from './checks/future-never-waited';
import { futureReadBeforeWait } from './checks/future-read-before-wait';
import { futureRotationMismatch } from './checks/future-rotation-mismatch';
import { initByManyThreads } from './checks/init-by-many-threads';
import { initNotVisible } from './checks/init-not-visible';
import { missingBootstrapArrival } from './checks/missing-bootstrap-arrival';
import { mmaWithoutCommitArrive } from './checks/mma-without-commit-arrive';
import { namedBarrierArriveRunAhead } from './checks/named-barrier-arrive-run-ahead';
import { namedBarrierCountMismatch } from './checks/named-barrier-count-mismatch';
import { parityFlipOffRingSchedule } from './checks/parity-flip-off-ring-schedule';
import { parityFromShiftedLoopStart } from './checks/parity-from-shifted-loop-start';
import { parityNeverFlips } from './checks/parity-never-flips';
import { removedSyncSyntax } from './checks/removed-sync-syntax';
import { ringPositionResetPerTile } from './checks/ring-position-reset-per-tile';
import { smemWriteBeforeBulkStore } from './checks/smem-write-before-bulk-store';
import { slotReleasedBeforeMmaCommit } from './checks/slot-released-before-mma-commit';
import { staleOrMovedToken } from './checks/stale-or-moved-token';
import { threadGroupOverArrival } from './checks/thread-group-over-arrival';
import { threadGroupUnderArrival } from './checks/thread-group-under-arrival';
import { tcgen05HandoffWithoutFence } from './checks/tcgen05-handoff-without-fence';
import { tmemDeallocWhileInUse } from './checks/tmem-dealloc-while-in-use';
import { tokenFromOtherBarrier } from './checks/token-from-other-barrier';
import { tripCountMismatch } from './checks/trip-count-mismatch';
import { undefinedPtxBarrierInstruction } from './checks/undefined-ptx-barrier-instruction';
import { useBeforeInit } from './checks/use-before-init';
import { waitOnStaleSlotAddress } from './checks/wait-on-stale-slot-address';
import { waitResultDiscarded } from './checks/wait-result-discarded';
import { waitSlotReadMismatch } from './checks/wait-slot-read-mismatch';
import type { RuleDef } from './types';

export const RULES: RuleDef[] = [
  arrivalCountMismatch,
  arrivalOnOnePath,
  arrivalOnlyWithWork,
  asmResultBoundToInput,
  barrierInsideCopyDestination,
  blockSyncInRoleBranch,
  bulkCopyWithoutExpectTx,
  bulkStoreNotWaited,
  clusterExitBeforeRemoteArrival,
  cpAsyncWaitWaitsForNothing,
  cpAsyncWithoutBarrierArrive,
  earlyExitWithoutDrop,
  eventAtModulo,
  eventDoubleCredit,
  eventWaitedNeverTriggered,
  expectTxByteMismatch,
  expectTxWithoutCopy,
  futureNeverWaited,
  futureReadBeforeWait,
  futureRotationMismatch,
  initByManyThreads,
  initNotVisible,
  missingBootstrapArrival,
  mmaWithoutCommitArrive,
  namedBarrierArriveRunAhead,
  namedBarrierCountMismatch,
  parityFlipOffRingSchedule,
  parityFromShiftedLoopStart,
  parityNeverFlips,
  removedSyncSyntax,
  ringPositionResetPerTile,
  slotReleasedBeforeMmaCommit,
  smemWriteBeforeBulkStore,
  staleOrMovedToken,
  tcgen05HandoffWithoutFence,
  threadGroupOverArrival,
  threadGroupUnderArrival,
  tmemDeallocWhileInUse,
  tokenFromOtherBarrier,
  tripCountMismatch,
  undefinedPtxBarrierInstruction,
  useBeforeInit,
  waitOnStaleSlotAddress,
  waitResultDiscarded,
  waitSlotReadMismatch,
];

export function ruleByIdOrCode(key: string): RuleDef | undefined {
  return RULES.find((r) => r.meta.id === key || r.meta.code === key);
}
