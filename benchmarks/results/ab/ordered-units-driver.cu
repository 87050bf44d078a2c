// SPDX-License-Identifier: Apache-2.0
// Why the order-preserving Reduce at 2^30 items lost 1-1.6 % to 3f8171c's units (issue 21): a user `+` not declared
// commutative over float, int32 and double beside cub's Reduce with the same operator, at 2^26-2^30 items, under
// the policy's waves and forced waves (1, 2, 8, 16). Built once per tree (`max_partial_tiles` 2, 4 or 8: 8192,
// 16384 or 32768 units for 4-byte accumulators). Times: the median of 21 event timings of one call ("call") and of
// 10 calls back to back ("b2b", per call), in us. Sizes: 2^26, 2^28 and 2^30 twice over, or the log2 sizes given
// (`ordered-units 25 26`: then forced waves 1, 2, 4, 8 and 16, once).
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -I<tree>/benchmarks -o ordered-units ordered-units-driver.cu
#include <fold/fold.cuh>

#include "bench_forced.cuh"
#include "driver_util.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdio>
#include <cstdlib>

template <typename T>
void run(const char* name, int log2, bool four = false)
{
  CaseBuffers<T> b(std::size_t{1} << log2);
  const long long items = static_cast<long long>(b.n);
  auto fold_call        = [&]
  { return fold::DeviceReduce::Reduce(b.temp, b.bytes, b.in, b.out, items, Plus{}, T{}, b.stream, bench::forced); };
  auto cub_call = [&]
  { return cub::DeviceReduce::Reduce(b.temp, b.bytes, b.in, b.out + 1, items, Plus{}, T{}, b.stream); };
  auto time = [&](auto call, int waves)
  {
    bench::forced_hooks.waves = waves;
    print_call_and_b2b(b.stream, call);
    bench::forced_hooks = {};
  };
  std::size_t query = 0;
  CHECK(fold::DeviceReduce::Reduce(nullptr, query, b.in, b.out, items, Plus{}, T{}, b.stream));
  std::printf("%-7s 2^%d %6zu", name, log2, query / sizeof(T));
  time(cub_call, 0);
  time(fold_call, 0);
  for (int waves : {1, 2, 4, 8, 16})
  {
    if (waves != 4 || four)
    {
      time(fold_call, waves);
    }
  }
  std::printf("\n");
}

int main(int argc, char** argv)
{
  if (argc > 1)
  {
    std::printf("us, one call / per call of 10 back to back; columns: partials held (storage / item size), cub, fold "
                "(policy), fold waves 1, 2, 4, 8, 16\n");
    for (int a = 1; a < argc; ++a)
    {
      run<float>("float", std::atoi(argv[a]), true);
      run<int>("int32", std::atoi(argv[a]), true);
      run<double>("double", std::atoi(argv[a]), true);
    }
    return 0;
  }
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
