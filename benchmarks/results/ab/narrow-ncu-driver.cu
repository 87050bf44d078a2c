// SPDX-License-Identifier: Apache-2.0
// The driver behind narrow-ncu-*.txt (not built by CMake): one warm-up and one measured call each of Sum, Min,
// MinMax, ArgMax and ArgMinMax over int8 at 2^<log2> items (default 30) from fold-bench's generator, for Nsight
// Compute (`ncu --clock-control none ...`, the measured calls being the second of each) and for the instruction
// counts of each kernel's SASS (`cuobjdump -sass`). The results are checked against cub's (CHECK FAILED on a
// mismatch).
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -Ibenchmarks -o narrow-ncu narrow-ncu-driver.cu
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
  const int log2 = argc > 1 ? std::atoi(argv[1]) : 30;
  using T        = std::int8_t;
  CaseBuffers<T> c(std::size_t{1} << log2);
  bench::fill(c.in, c.n, 1234 + static_cast<std::uint64_t>(log2));
  CHECK(cudaDeviceSynchronize());
  const auto n = static_cast<long long>(c.n);
  long long* idx;
  int* sum;
  CHECK(cudaMalloc(&idx, 8 * sizeof(long long)));
  CHECK(cudaMalloc(&sum, 2 * sizeof(int)));
  T* v = c.out;
  for (int round = 0; round < 2; ++round)
  {
    CHECK(fold::DeviceReduce::Sum(c.temp, c.bytes, c.in, sum, n, c.stream));
    CHECK(fold::DeviceReduce::Min(c.temp, c.bytes, c.in, v, n, c.stream));
    CHECK(fold::DeviceReduce::MinMax(c.temp, c.bytes, c.in, v + 1, v + 2, n, c.stream));
    CHECK(fold::DeviceReduce::ArgMax(c.temp, c.bytes, c.in, v + 3, idx, n, c.stream));
    CHECK(fold::DeviceReduce::ArgMinMax(c.temp, c.bytes, c.in, v + 4, idx + 1, v + 5, idx + 2, n, c.stream));
    CHECK(cudaStreamSynchronize(c.stream));
  }
  CHECK(cub::DeviceReduce::Min(c.temp, c.bytes, c.in, v + 8, n, c.stream));
  CHECK(cub::DeviceReduce::Max(c.temp, c.bytes, c.in, v + 9, n, c.stream));
  CHECK(cub::DeviceReduce::ArgMax(c.temp, c.bytes, c.in, v + 10, idx + 4, n, c.stream));
  CHECK(cub::DeviceReduce::ArgMin(c.temp, c.bytes, c.in, v + 11, idx + 5, n, c.stream));
  CHECK(cudaStreamSynchronize(c.stream));
  T h[16];
  long long hi[8];
  CHECK(cudaMemcpy(h, v, sizeof(h), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hi, idx, sizeof(hi), cudaMemcpyDeviceToHost));
  const bool ok = h[0] == h[8] && h[1] == h[8] && h[2] == h[9] && h[3] == h[10] && hi[0] == hi[4] && h[4] == h[11] &&
                  hi[1] == hi[5] && h[5] == h[10] && hi[2] == hi[4];
  std::printf("narrow-ncu 2^%d int8: min %d max %d argmax %lld argmin %lld%s\n",
              log2,
              h[8],
              h[9],
              hi[4],
              hi[5],
              ok ? "" : "  CHECK FAILED");
  CHECK(cudaFree(idx));
  CHECK(cudaFree(sum));
  return ok ? 0 : 1;
}
