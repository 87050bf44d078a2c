// SPDX-License-Identifier: Apache-2.0
// Where an axis reduction's time goes beside the whole-array reduce of the same items (issue 19): for a [rows, cols]
// array reduced over axis 0 (or 1), DeviceReduceAxes::Sum timed as one call queued behind a spin (the GPU's own
// time), one call, and 10 calls back to back (per call), beside DeviceReduce::Sum over the same rows * cols items
// (one kernel's floor for those bytes). `axes-launches-driver ncu <type> <rows> <cols> <axis>` makes three calls of
// the axis reduction only, for ncu. `axes-launches-driver outliers` times the same way the shapes of up to 4
// dimensions in `outliers` below (Max through DeviceReduceAxes::Max, as fold-segmented-bench calls it), and
// `axes-launches-driver ncu outliers <name>` makes three calls of one of them.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o axes-launches-driver axes-launches-driver.cu
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>

#include <cuda_fp16.h>

#include "driver_util.cuh"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

//! What `run` reduces with: DeviceReduceAxes::Sum; Reduce with fold::Max (an exact operator, as an integer sum is); or
//! DeviceReduceAxes::Max (order keys, as fold-segmented-bench calls it).
enum class AxesOp
{
  sum,
  reduce_max,
  max
};

//! `outlier`: the line format of `outliers` and its input (`fill_hashed` in [-1, 1)), else the [rows, cols] one.
template <typename T, AxesOp Op = AxesOp::sum>
void run(const char* name, bool ncu, std::vector<std::int64_t> shape, std::vector<int> reduced_axes, bool outlier)
{
  const bench::AxesCounts counts = bench::axes_counts(shape, reduced_axes);
  const std::size_t n            = counts.items;
  const std::size_t outputs      = counts.outputs;
  T* in                          = nullptr;
  float* whole                   = nullptr;
  T* out                         = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, outputs * sizeof(T)));
  CHECK(cudaMalloc(&whole, sizeof(float)));
  if (outlier)
  {
    fill_hashed<<<1024, 256>>>(in, n, 2.0, -1.0);
  }
  else
  {
    fill<<<1024, 256>>>(in, static_cast<long long>(n), 0.5f);
  }
  CHECK(cudaGetLastError());
  const fold::Extents extents(shape.data(), static_cast<int>(shape.size()));
  const fold::Axes axes_(reduced_axes.data(), static_cast<int>(reduced_axes.size()));
  std::size_t axes_bytes = 0, sum_bytes = 0;
  auto reduce_axes = [&](void* storage)
  {
    if constexpr (Op == AxesOp::max)
    {
      return fold::DeviceReduceAxes::Max(storage, axes_bytes, in, out, extents, axes_);
    }
    else if constexpr (Op == AxesOp::reduce_max)
    {
      return fold::DeviceReduceAxes::Reduce(
          storage, axes_bytes, in, out, extents, axes_, fold::Max{}, std::numeric_limits<T>::lowest());
    }
    else
    {
      return fold::DeviceReduceAxes::Sum(storage, axes_bytes, in, out, extents, axes_);
    }
  };
  CHECK(reduce_axes(nullptr));
  CHECK(fold::DeviceReduce::Sum(nullptr, sum_bytes, in, whole, n));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, (axes_bytes > sum_bytes ? axes_bytes : sum_bytes) + 16));
  auto axes = [&] { return reduce_axes(temp); };
  auto sum  = [&] { return fold::DeviceReduce::Sum(temp, sum_bytes, in, whole, n); };
  if (ncu)
  {
    for (int k = 0; k < 3; ++k)
    {
      CHECK(axes());
    }
  }
  else if (outlier)
  {
    std::printf("%-26s %4.0f MiB:", name, n * sizeof(T) / 1048576.0);
    const float queued_axes = median_us(0, true, 1, [&] { CHECK(axes()); });
    const float queued_sum  = median_us(0, true, 1, [&] { CHECK(sum()); });
    std::printf(" axes queued %7.1f one/b2b", queued_axes);
    print_call_and_b2b(0, axes);
    std::printf(" | whole Sum queued %7.1f one/b2b", queued_sum);
    print_call_and_b2b(0, sum);
    std::printf("\n");
  }
  else
  {
    std::printf("%-5s [%lld, %lld] axis %d, %.0f MiB:",
                name,
                static_cast<long long>(shape[0]),
                static_cast<long long>(shape[1]),
                reduced_axes[0],
                n * sizeof(T) / 1048576.0);
    const float queued_axes = median_us(0, true, 1, [&] { CHECK(axes()); });
    const float queued_sum  = median_us(0, true, 1, [&] { CHECK(sum()); });
    std::printf(
        " axes queued %.1f us (%.1f%% of 4814 GB/s), one/b2b", queued_axes, n * sizeof(T) / queued_axes / 4814e3 * 100);
    print_call_and_b2b(0, axes);
    std::printf(" | whole-array Sum queued %.1f us, one/b2b", queued_sum);
    print_call_and_b2b(0, sum);
    std::printf(" | axes/sum queued %.3f\n", queued_axes / queued_sum);
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(temp));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(whole));
}

//! The three cases of 8955454's committed segmented-bench whose one call took 17-37 us more than a call back to back
//! (the other axis cases 3.5-8.8), each beside a case of the same shape that did not
//! (benchmarks/results/ab/axes-one-call-6372445.txt).
struct Outlier
{
  const char* name;
  bool half, max;
  std::vector<std::int64_t> shape;
  std::vector<int> axes;
};
const std::vector<Outlier> outliers = {
    {"64x4096x256/axis1", false, false, {64, 4096, 256}, {1}},
    {"64x4096x256/axis1/max", false, true, {64, 4096, 256}, {1}},
    {"64x56x56x256/axes012", false, false, {64, 56, 56, 256}, {0, 1, 2}},
    {"64x56x56x256/axes012/max", false, true, {64, 56, 56, 256}, {0, 1, 2}},
    {"16777216x16/axis0", false, false, {1 << 24, 16}, {0}},
    {"16777216x16/axis0/half", true, false, {1 << 24, 16}, {0}},
};

void run_outliers(bool ncu, const char* only)
{
  for (const Outlier& c : outliers)
  {
    if (only != nullptr && std::string(only) != c.name)
    {
      continue;
    }
    if (c.half)
    {
      run<__half>(c.name, ncu, c.shape, c.axes, true);
    }
    else if (c.max)
    {
      run<float, AxesOp::max>(c.name, ncu, c.shape, c.axes, true);
    }
    else
    {
      run<float>(c.name, ncu, c.shape, c.axes, true);
    }
  }
}

// `axes-launches-driver <type> <rows> <cols> <axis>` or `axes-launches-driver ncu <type> <rows> <cols> <axis>`; a type
// of `float-max` reduces floats with fold::Max instead of summing them. `axes-launches-driver outliers` and
// `axes-launches-driver ncu outliers <name>`: the shapes in `outliers`.
int main(int argc, char** argv)
{
  const bool ncu = argc > 1 && std::string(argv[1]) == "ncu";
  const int a    = ncu ? 2 : 1;
  if (argc > a && std::string(argv[a]) == "outliers")
  {
    run_outliers(ncu, argc > a + 1 ? argv[a + 1] : nullptr);
    return 0;
  }
  if (argc < a + 4)
  {
    std::printf(
        "usage: axes-launches-driver [ncu] half|float|float-max|int32 rows cols axis, or [ncu] outliers [name]\n");
    return 2;
  }
  const std::string type = argv[a];
  const std::vector<std::int64_t> shape{std::atoll(argv[a + 1]), std::atoll(argv[a + 2])};
  const std::vector<int> axis{std::atoi(argv[a + 3])};
  if (type == "half")
  {
    run<__half>("half", ncu, shape, axis, false);
  }
  else if (type == "float")
  {
    run<float>("float", ncu, shape, axis, false);
  }
  else if (type == "float-max")
  {
    run<float, AxesOp::reduce_max>("float-max", ncu, shape, axis, false);
  }
  else
  {
    run<int>("int32", ncu, shape, axis, false);
  }
  return 0;
}
