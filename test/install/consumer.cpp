// SPDX-License-Identifier: Apache-2.0
// Plain C++: no nvcc, no CUDA templates.
#include <fold/precompiled.h>

int main()
{
  std::size_t bytes = 0;
  const float* d_in = nullptr;
  float* d_out      = nullptr;
  return fold::precompiled::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, 1 << 20) == cudaSuccess ? 0 : 1;
}
