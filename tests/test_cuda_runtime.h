/*
 * test_cuda_runtime.h — for the device tests that call the CUDA runtime
 * themselves (graph capture): its header when the compiler can find
 * <cuda_runtime_api.h> (TC_HAVE_RUNTIME then defined) and CUDA_OK, a check
 * of one runtime call. Without it a test SKIPs saying so.
 */
#ifndef SMV_TEST_CUDA_RUNTIME_H
#define SMV_TEST_CUDA_RUNTIME_H

#if defined(SMV_HAVE_CUDA) && defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define TC_HAVE_RUNTIME 1
#endif
#endif

#ifdef TC_HAVE_RUNTIME
#define CUDA_OK(call)                                                          \
  do {                                                                         \
    cudaError_t tc_e = (call);                                                 \
    CHECKF(tc_e == cudaSuccess, "%s: %s", #call, cudaGetErrorString(tc_e));    \
  } while (0)
#endif

#endif
