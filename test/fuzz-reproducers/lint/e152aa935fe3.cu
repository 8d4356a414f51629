
__global__ void __launch_bounds__(128) k(float* out, int k_blocks)
{
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
    for (int kb = 0; kb < k_blocks; ++kb)
      cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, acc, desc(a), desc(b), IDESC, kb > 0);
  }
  mbar_wait(&acc_ready, 0);                                     // expect: PF301