// SPDX-License-Identifier: Apache-2.0
// The Catch2 main of every test executable. Built with FOLD_TEST_NEEDS_GPU it first looks for a CUDA device and
// exits with 77, which ctest reports as "skipped", when there is none.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include <cstdio>

int main(int argc, char** argv)
{
#ifdef FOLD_TEST_NEEDS_GPU
  int devices              = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0)
  {
    std::printf("no CUDA device (%s): skipped\n", cudaGetErrorName(status));
    return 77;
  }
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&properties, device) == cudaSuccess)
  {
    std::printf("device %d: %s, sm_%d%d, %d SMs\n",
                device,
                properties.name,
                properties.major,
                properties.minor,
                properties.multiProcessorCount);
  }
#endif
  return Catch::Session().run(argc, argv);
}
