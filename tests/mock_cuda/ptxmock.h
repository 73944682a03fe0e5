/* ptxmock.h -- the records the mock driver (mock_cuda.c) keeps for tests to inspect, through its
** ptxmock_* entry points (tests load them with dlsym; tests/spec/mock_driver_spec.lua mirrors the
** launch record in an FFI cdef). */
#ifndef PTXMOCK_H
#define PTXMOCK_H
#include <stdint.h>

/* the last cuLaunchKernelEx */
struct ptxmock_launch {
  char func[256];
  unsigned grid[3], block[3], cluster[3], smem;
  void *stream;
  uint32_t param_size;
  unsigned char params[4096];
  int cluster_attr; /* the launch passed CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */
};

/* the last cuTensorMapEncodeTiled's arguments */
struct ptxmock_tiled {
  int dtype;
  unsigned rank;
  uint64_t addr, dims[5], strides[4];
  unsigned box[5], estr[5];
  int interleave, swizzle, l2, oob;
};

/* the last cuTensorMapEncodeIm2col's arguments */
struct ptxmock_im2col {
  int dtype;
  unsigned rank;
  uint64_t addr, dims[5], strides[4];
  int lower[3], upper[3];
  unsigned channels, pixels, estr[5];
  int interleave, swizzle, l2, oob;
};
#endif
