// SPDX-License-Identifier: Apache-2.0
// Must NOT compile: a user tuning whose block size is not a multiple of 32. Compiled by ctest
// (tuning.bad_tuning, cmake/test_compile_fails.cmake), which expects the failure to say so in one sentence.
#include <fold/device/device_reduce.cuh>

struct BadTuning
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p = fold::DefaultTuning::policy(arch);
    p.block_threads      = 100;
    return p;
  }
};

int main()
{
  std::size_t bytes = 0;
  const float* in   = nullptr;
  float* out        = nullptr;
  return fold::DeviceReduce::Sum(nullptr, bytes, in, out, 10, 0, fold::tuned<BadTuning>) == cudaSuccess ? 0 : 1;
}
