// The declarations a whole program's host code gets from <cuda_runtime.h>, <cuda.h>, <cstdio> and
// <vector>, written in the C++ subset the simulator compiles, and parsed ahead of the file like a
// header: error codes and enums with the toolkit's values, handles (streams, events) as integers,
// dim3, the launch configuration of cudaLaunchKernelEx (layout read by host-launch.ts), CUtensorMap,
// and std::vector over `new[]` (its `v[i]` is host-hooks.ts's; the rest are ordinary member functions).
export const HOST_PRELUDE_FILE = '<phaseflip host library>';

export const HOST_PRELUDE = `
using cudaError_t = int;
using cudaError = int;
enum {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17, cudaErrorInvalidMemcpyDirection = 21, cudaErrorInvalidDeviceFunction = 98,
  cudaErrorInvalidResourceHandle = 400, cudaErrorNotReady = 600, cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701, cudaErrorAssert = 710, cudaErrorMisalignedAddress = 716, cudaErrorLaunchFailure = 719
};
using cudaMemcpyKind = int;
enum { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
using cudaFuncAttribute = int;
enum {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10, cudaFuncAttributeRequiredClusterWidth = 11, cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13, cudaFuncAttributeNonPortableClusterSizeAllowed = 14
};
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1, cudaEventDefault = 0, cudaEventBlockingSync = 1, cudaEventDisableTiming = 2 };
using cudaStream_t = unsigned long long;
using cudaEvent_t = unsigned long long;
using cudaLaunchAttributeID = int;
enum { cudaLaunchAttributeClusterDimension = 4, cudaLaunchAttributeClusterSchedulingPolicyPreference = 5 };
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};
struct cudaLaunchAttributeClusterDim { unsigned int x; unsigned int y; unsigned int z; };
struct cudaLaunchAttributeValue { cudaLaunchAttributeClusterDim clusterDim; unsigned int pad[11]; };
struct cudaLaunchAttribute { int id; int pad; cudaLaunchAttributeValue val; };
struct cudaLaunchConfig_t {
  dim3 gridDim; dim3 blockDim; unsigned long long dynamicSmemBytes; cudaStream_t stream;
  cudaLaunchAttribute* attrs; unsigned int numAttrs;
};
struct cudaDeviceProp {
  char name[256];
  unsigned long long totalGlobalMem; unsigned long long sharedMemPerBlock; int regsPerBlock; int warpSize;
  int maxThreadsPerBlock; int maxThreadsDim[3]; int maxGridSize[3]; int clockRate; unsigned long long totalConstMem;
  int major; int minor; int multiProcessorCount; int l2CacheSize; int maxThreadsPerMultiProcessor;
  unsigned long long sharedMemPerMultiprocessor; int regsPerMultiprocessor; unsigned long long sharedMemPerBlockOptin;
  int memoryBusWidth; int concurrentKernels; int unifiedAddressing; int managedMemory; int cooperativeLaunch; int clusterLaunch;
};
using CUresult = int;
enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 };
using cuuint64_t = unsigned long long;
using cuuint32_t = unsigned int;
struct CUtensorMap { unsigned long long opaque[16]; };
using CUtensorMapDataType = int;
enum {
  CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0, CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1, CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2,
  CU_TENSOR_MAP_DATA_TYPE_INT32 = 3, CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4, CU_TENSOR_MAP_DATA_TYPE_INT64 = 5,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7, CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8,
  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9, CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ = 10, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 = 11,
  CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ = 12
};
using CUtensorMapInterleave = int;
enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0, CU_TENSOR_MAP_INTERLEAVE_16B = 1, CU_TENSOR_MAP_INTERLEAVE_32B = 2 };
using CUtensorMapSwizzle = int;
enum { CU_TENSOR_MAP_SWIZZLE_NONE = 0, CU_TENSOR_MAP_SWIZZLE_32B = 1, CU_TENSOR_MAP_SWIZZLE_64B = 2, CU_TENSOR_MAP_SWIZZLE_128B = 3 };
using CUtensorMapL2promotion = int;
enum { CU_TENSOR_MAP_L2_PROMOTION_NONE = 0, CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1, CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2, CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3 };
using CUtensorMapFloatOOBfill = int;
enum { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1 };
enum { RAND_MAX = 2147483647, EXIT_SUCCESS = 0, EXIT_FAILURE = 1 };
struct FILE { int __fd; };
namespace std {
template <typename T>
struct vector {
  T* __data;
  unsigned long long __size;
  unsigned long long __cap;
  vector() : __data(nullptr), __size(0), __cap(0) {}
  vector(unsigned long long n) : __data(nullptr), __size(n), __cap(n) { __data = new T[n](); }
  vector(unsigned long long n, T value) : __data(nullptr), __size(n), __cap(n) {
    __data = new T[n]();
    for (unsigned long long i = 0; i < n; ++i) __data[i] = value;
  }
  unsigned long long size() const { return __size; }
  unsigned long long capacity() const { return __cap; }
  bool empty() const { return __size == 0; }
  T* data() { return __data; }
  T& at(unsigned long long i) { return __data[i]; }
  T& front() { return __data[0]; }
  T& back() { return __data[__size - 1]; }
  void clear() { __size = 0; }
  void reserve(unsigned long long n) {
    if (n <= __cap) return;
    T* fresh = new T[n]();
    for (unsigned long long i = 0; i < __size; ++i) fresh[i] = __data[i];
    if (__data) delete[] __data;
    __data = fresh;
    __cap = n;
  }
  void resize(unsigned long long n) {
    reserve(n);
    for (unsigned long long i = __size; i < n; ++i) __data[i] = (T)0;
    __size = n;
  }
  void resize(unsigned long long n, T value) {
    reserve(n);
    for (unsigned long long i = __size; i < n; ++i) __data[i] = value;
    __size = n;
  }
  void push_back(T value) {
    if (__size == __cap) reserve(__cap ? 2 * __cap : 4);
    __data[__size] = value;
    __size = __size + 1;
  }
  void pop_back() { __size = __size - 1; }
  void assign(unsigned long long n, T value) { resize(0); resize(n, value); }
};
}
`;
