// SPDX-License-Identifier: Apache-2.0
// The driver behind minmax-double-grid-8b77987.txt (not built by CMake):
//   nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -I<tree>/benchmarks -o gw grid-waves-driver.cu; gw
// MinMax, Min and Sum over double and int64, and ArgMinMax over double, at 2^26-2^30 items under pass 1's waves as the
// policy sets them (4 above 128 MiB) and forced to 3, 5 and 8 (`bench::forced`): fold's time for one call
// (driver_util.cuh's median_us), % of the H100's datasheet peak. The pass-1 grid is (blocks a multiprocessor holds
// of the single-pass kernel) x 132 x waves; where pass 1's own kernel holds more blocks, the last wave is partial.
#include "driver_util.cuh"

#include <fold/fold.cuh>

#include "bench_forced.cuh"

#include <cstdint>
#include <cstdio>
#include <type_traits>

template <typename T>
void run(const char* type, int log2)
{
  const std::size_t n = std::size_t{1} << log2;
  T* d_in;
  CHECK(cudaMalloc(&d_in, n * sizeof(T)));
  fill_hashed<<<1024, 256>>>(d_in, n, 1.0, -0.5);
  CHECK(cudaDeviceSynchronize());
  void* temp;
  std::size_t bytes = std::size_t{1} << 26;
  CHECK(cudaMalloc(&temp, bytes));
  T* v;
  long long* i;
  CHECK(cudaMalloc(&v, 4 * sizeof(T)));
  CHECK(cudaMalloc(&i, 4 * sizeof(long long)));
  const long long count = static_cast<long long>(n);
  const double peak_us  = static_cast<double>(n) * sizeof(T) / 3352e3; // the H100's datasheet 3352 GB/s
  auto minmax = [&] { CHECK(fold::DeviceReduce::MinMax(temp, bytes, d_in, v, v + 1, count, 0, bench::forced)); };
  auto min    = [&] { CHECK(fold::DeviceReduce::Min(temp, bytes, d_in, v, count, 0, bench::forced)); };
  auto sum    = [&] { CHECK(fold::DeviceReduce::Sum(temp, bytes, d_in, v, count, 0, bench::forced)); };
  auto argmm  = [&]
  { CHECK(fold::DeviceReduce::ArgMinMax(temp, bytes, d_in, v, i, v + 1, i + 1, count, 0, bench::forced)); };
  for (int waves : {0, 3, 5, 8})
  {
    bench::forced_hooks = {fold::detail::ReducePath::automatic, 0, waves};
    const float a = median_us(0, false, 1, minmax), b = median_us(0, false, 1, min), c = median_us(0, false, 1, sum);
    const float d = std::is_floating_point_v<T> ? median_us(0, false, 1, argmm) : 0.0f;
    std::printf("%-6s 2^%d waves %d  MinMax %8.1f us %5.1f %%  Min %8.1f us %5.1f %%  Sum %8.1f us %5.1f %%  ArgMinMax "
                "%8.1f us %5.1f %%\n",
                type,
                log2,
                waves,
                a,
                100 * peak_us / a,
                b,
                100 * peak_us / b,
                c,
                100 * peak_us / c,
                d,
                d > 0 ? 100 * peak_us / d : 0.0);
  }
  bench::forced_hooks = {};
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(temp));
  CHECK(cudaFree(v));
  CHECK(cudaFree(i));
}

int main()
{
  for (int log2 : {26, 28, 30})
  {
    run<double>("double", log2);
    run<std::int64_t>("int64", log2);
  }
}
