// SPDX-License-Identifier: Apache-2.0
// What the examples share: CHECK(call) for every cudaError_t (CUDA's and fold's), and the test for a device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

// Reports a call that did not return cudaSuccess, with its file and line, and exits with 1.
#define CHECK(call)                                                                                                    \
  do                                                                                                                   \
  {                                                                                                                    \
    const cudaError_t check_status_ = (call);                                                                          \
    if (check_status_ != cudaSuccess)                                                                                  \
    {                                                                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(check_status_));           \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

// ctest's SKIP_RETURN_CODE: what an example returns from main when there is no device to run on.
inline constexpr int example_skipped = 77;

// Whether there is a CUDA device; when there is none, says so on stdout.
inline bool example_has_device()
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
  {
    std::printf("no CUDA device: skipped\n");
    return false;
  }
  return true;
}
