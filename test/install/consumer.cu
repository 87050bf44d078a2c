// SPDX-License-Identifier: Apache-2.0
#include <fold/fold.cuh>

int main()
{
  std::size_t bytes = 0;
  const int* d_in   = nullptr;
  int* d_out        = nullptr;
  return fold::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, 1 << 20) == cudaSuccess ? 0 : 1;
}
