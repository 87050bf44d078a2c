// SPDX-License-Identifier: Apache-2.0
// Why the order-preserving Reduce at 2^30 items lost 1-1.6 % to 3f8171c's units (issue 21): a user `+` not declared
// commutative over float, int32 and double beside cub's Reduce with the same operator, at 2^26-2^30 items, under
// the policy's waves and forced waves (1, 2, 8, 16). Built once per tree (`max_partial_tiles` 2, 4 or 8: 8192,
// 16384 or 32768 units for 4-byte accumulators). Times: the median of 21 event timings of one call ("call") and of
// 10 calls back to back ("b2b", per call), in us.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -I<tree>/benchmarks -o ordered-units ordered-units-driver.cu
#include <fold/fold.cuh>

#include "bench_forced.cuh"
#include "driver_util.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdio>

template <typename T>
void run(const char* name, int log2)
{
  const std::size_t n = std::size_t{1} << log2;
  T* in               = nullptr;
  T* out              = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, 64 * sizeof(T)));
  fill_hashed<<<1024, 256>>>(in, n);
  CHECK(cudaDeviceSynchronize());
  std::size_t bytes = std::size_t{1} << 24;
  void* temp        = nullptr;
  CHECK(cudaMalloc(&temp, bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const long long items = static_cast<long long>(n);
  auto fold_call        = [&]
  { return fold::DeviceReduce::Reduce(temp, bytes, in, out, items, Plus{}, T{}, stream, bench::forced); };
  auto cub_call = [&] { return cub::DeviceReduce::Reduce(temp, bytes, in, out + 1, items, Plus{}, T{}, stream); };
  auto time     = [&](auto call, int waves)
  {
    bench::forced_hooks.waves = waves;
    print_call_and_b2b(stream, call);
    bench::forced_hooks = {};
  };
  std::size_t query = 0;
  CHECK(fold::DeviceReduce::Reduce(nullptr, query, in, out, items, Plus{}, T{}, stream));
  std::printf("%-7s 2^%d %6zu", name, log2, query / sizeof(T));
  time(cub_call, 0);
  time(fold_call, 0);
  for (int waves : {1, 2, 8, 16})
  {
    time(fold_call, waves);
  }
  std::printf("\n");
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(temp));
}

int main()
{
  std::printf("us, one call / per call of 10 back to back; columns: partials held (storage / item size), cub, fold "
              "(policy), fold waves 1, 2, 8, 16\n");
  for (int round = 0; round < 2; ++round)
  {
    for (int log2 : {26, 28, 30})
    {
      run<float>("float", log2);
      run<int>("int32", log2);
      run<double>("double", log2);
    }
  }
  return 0;
}
