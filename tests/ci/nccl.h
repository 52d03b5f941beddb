/*
 * tests/ci/nccl.h — a declarations-only stand-in for the part of NCCL's
 * API that src/cuda/dist/nccl.cu uses, so that CI (which has no NCCL:
 * Debian does not package it) still compiles that file (`make
 * cu-compile-check`) and a type or syntax error in it cannot hide until a
 * GPU machine builds it. Never linked: the real build uses the real
 * nccl.h and libnccl (mk/dist.mk). Names, types and the 128-byte unique
 * id follow NCCL's documented API (NCCL 2.x).
 */
#ifndef SMV_CI_NCCL_STANDIN_H
#define SMV_CI_NCCL_STANDIN_H

#include <cuda_runtime.h>
#include <stddef.h>

typedef struct ncclComm *ncclComm_t;
typedef struct {
  char internal[128];
} ncclUniqueId;
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7
} ncclResult_t;
typedef enum {
  ncclFloat32 = 7,
  ncclFloat = 7,
  ncclFloat64 = 8,
  ncclDouble = 8
} ncclDataType_t;

#ifdef __cplusplus
extern "C" {
#endif
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                              int rank);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
const char *ncclGetErrorString(ncclResult_t result);
const char *ncclGetLastError(ncclComm_t comm);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
ncclResult_t ncclSend(const void *sendbuff, size_t count,
                      ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream);
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
                      int peer, ncclComm_t comm, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif
