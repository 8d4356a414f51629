# BUG (PF201): the producer waits on its "slot free" barriers starting at consumer_initial_phase (0).
# A fresh barrier is still in phase 0, so the first wait blocks until the consumers release a stage; they
# only release after consuming data the producer has not loaded yet: the kernel deadlocks on its first
# iteration. The fixed version is ../good/tma_pipeline.py (producer_initial_phase, 1).
import tilus
from tilus import float16, float32, int32, uint32


@tilus.autotune("num_stages", [2, 4])
@tilus.autotune("block_k", [32, 64])
class TmaPipeline(tilus.Script):
    def __init__(self, num_stages, block_k, block_m=128, block_n=128):
        super().__init__()
        self.num_stages = num_stages
        self.block_k = block_k
        self.block_m = block_m
        self.block_n = block_n

    def __call__(self, m_size: int32, n_size: int, k_size: int, a_ptr: ~float16, b_ptr: ~float16):
        self.attrs.blocks = 1
        self.attrs.warps = 5
        stages = self.num_stages
        ga = self.global_view(a_ptr, dtype=float16, shape=[m_size, k_size])
        gb = self.global_view(b_ptr, dtype=float16, shape=[n_size, k_size])
        sa = self.shared_tensor(dtype=float16, shape=[stages, self.block_m, self.block_k])
        sb = self.shared_tensor(dtype=float16, shape=[stages, self.block_n, self.block_k])
        acc = self.register_tensor(dtype=float32, shape=[self.block_m, self.block_n], init=0.0)
        full = self.mbarrier.alloc(counts=[1 for _ in range(stages)])
        empty = self.mbarrier.alloc(counts=[128 for _ in range(stages)])

        with self.thread_group(thread_begin=128, num_threads=32):  # producer warp
            stage: int32 = 0
            phase: uint32 = self.mbarrier.consumer_initial_phase  # BUG: should be producer_initial_phase
            for offset_k in self.range(0, k_size, self.block_k, unroll=stages):
                self.mbarrier.wait(empty[stage], phase=phase)
                with self.single_thread():
                    self.mbarrier.arrive_and_expect_tx(full[stage], transaction_bytes=sa[stage].nbytes + sb[stage].nbytes)
                self.tma.global_to_shared(src=ga, dst=sa[stage], offsets=[0, offset_k], mbarrier=full[stage])
                self.tma.global_to_shared(src=gb, dst=sb[stage], offsets=[0, offset_k], mbarrier=full[stage])
                stage = (stage + 1) % stages
                phase = phase ^ (stage == 0)

        with self.thread_group(thread_begin=0, num_threads=128):  # consumer warp group
            stage: int32 = 0
            phase: uint32 = self.mbarrier.consumer_initial_phase
            for offset_k in self.range(0, k_size, self.block_k, unroll=stages):
                self.mbarrier.wait(full[stage], phase=phase)
                self.wgmma.fence()
                self.wgmma.mma(sa[stage], sb[stage].transpose(), acc)
                self.wgmma.commit_group()
                self.wgmma.wait_group(0)
                self.mbarrier.arrive(empty[stage])
                stage = (stage + 1) % stages
                phase = phase ^ (stage == 0)
