// SPDX-License-Identifier: Apache-2.0
// Must NOT compile: `fold::tuned<T>` with a T that has no constexpr `policy(int)`. Compiled by ctest
// (tuning.not_a_tuning, cmake/test_compile_fails.cmake), which expects the failure to say so in one sentence.
#include <fold/device/device_reduce.cuh>

struct NotATuning
{
  int policy = 3;
};

int main()
{
  std::size_t bytes = 0;
  const float* in   = nullptr;
  float* out        = nullptr;
  return fold::DeviceReduce::Sum(nullptr, bytes, in, out, 10, 0, fold::tuned<NotATuning>) == cudaSuccess ? 0 : 1;
}
