export interface KernelModule { kernels: unknown[] }
