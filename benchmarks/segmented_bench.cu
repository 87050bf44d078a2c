// SPDX-License-Identifier: Apache-2.0
// fold-segmented-bench: fold::DeviceSegmentedReduce::Sum against cub::DeviceSegmentedReduce::Sum over float,
// 2^28 items in all, for uniform segment lengths 1 .. 16M and power-law random lengths; and fold::DeviceReduceAxes
// over the shapes of issue 6, against cub's segmented sum where it applies (the last axis). Both in one run,
// timed with CUDA events, each the median of its iterations; results as Google Benchmark JSON.
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "bench_common.cuh"

#include <benchmark/benchmark.h>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace
{
bench::DeviceFacts facts;

struct Row
{
  std::string name;
  double fold_us, cub_us, bytes;
};
std::vector<Row> rows;

//! Device memory that lives for one case.
template <typename T>
struct Buffer
{
  T* data = nullptr;
  explicit Buffer(std::size_t n) { BENCH_CHECK(cudaMalloc(&data, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~Buffer() { cudaFree(data); }
  Buffer(const Buffer&)            = delete;
  Buffer& operator=(const Buffer&) = delete;
};

constexpr std::size_t total_items = std::size_t{1} << 28;

//! Offsets of back-to-back segments: uniform `length`, or power-law random lengths (length 0).
std::vector<int> make_offsets(std::size_t length)
{
  std::vector<int> offsets{0};
  if (length > 0)
  {
    for (std::size_t i = 0; i < total_items / length; ++i)
    {
      offsets.push_back(static_cast<int>((i + 1) * length));
    }
    return offsets;
  }
  // Pareto-like: P(L > x) ~ x^-0.7 from 1 item up to 2^24 items, so most segments are short and most items lie in
  // long segments.
  std::uint64_t state = 42;
  std::size_t items   = 0;
  while (items < total_items)
  {
    const double u      = static_cast<double>(bench::mix(++state) >> 11) * 0x1.0p-53;
    std::size_t segment = static_cast<std::size_t>(std::pow(1.0 - u, -1.0 / 0.7));
    segment             = std::min<std::size_t>({segment, std::size_t{1} << 24, total_items - items});
    items += segment;
    offsets.push_back(static_cast<int>(items));
  }
  return offsets;
}

//! Median seconds of `iterations` runs of `call` (each after one warm-up).
template <typename CallT>
double median_seconds(CallT&& call, int iterations)
{
  bench::EventTimer timer;
  BENCH_CHECK(call());
  std::vector<double> samples;
  for (int i = 0; i < iterations; ++i)
  {
    cudaError_t status = cudaSuccess;
    samples.push_back(timer.seconds([&] { status = call(); }));
    BENCH_CHECK(status);
  }
  return bench::median(samples);
}

void record(benchmark::State& state, const std::string& name, double fold_s, double cub_s, double bytes)
{
  state.counters["fold_us"]        = fold_s * 1e6;
  state.counters["cub_us"]         = cub_s * 1e6;
  state.counters["fold_over_cub"]  = cub_s > 0 ? fold_s / cub_s : 0;
  state.counters["bytes"]          = bytes;
  state.counters["fold_GBps"]      = bytes / fold_s / 1e9;
  state.counters["fold_peak_frac"] = bytes / fold_s / 1e9 / facts.peak_gbps;
  state.counters["cub_peak_frac"]  = cub_s > 0 ? bytes / cub_s / 1e9 / facts.peak_gbps : 0;
  rows.push_back({name, fold_s * 1e6, cub_s * 1e6, bytes});
}

void segmented_case(benchmark::State& state, std::size_t length)
{
  const std::vector<int> offsets = make_offsets(length);
  const auto segments            = static_cast<std::int64_t>(offsets.size() - 1);
  Buffer<float> in(total_items), out(segments), cub_out(segments);
  Buffer<int> d_offsets(offsets.size());
  bench::fill(in.data, total_items, 7);
  BENCH_CHECK(cudaMemcpy(d_offsets.data, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
  std::size_t fold_bytes = 0, cub_bytes = 0;
  BENCH_CHECK(fold::DeviceSegmentedReduce::Sum(
      nullptr, fold_bytes, in.data, out.data, segments, d_offsets.data, d_offsets.data + 1));
  BENCH_CHECK(cub::DeviceSegmentedReduce::Sum(
      nullptr, cub_bytes, in.data, cub_out.data, segments, d_offsets.data, d_offsets.data + 1));
  Buffer<char> fold_temp(fold_bytes), cub_temp(cub_bytes);
  auto fold_call = [&]
  {
    return fold::DeviceSegmentedReduce::Sum(
        fold_temp.data, fold_bytes, in.data, out.data, segments, d_offsets.data, d_offsets.data + 1);
  };
  auto cub_call = [&]
  {
    return cub::DeviceSegmentedReduce::Sum(
        cub_temp.data, cub_bytes, in.data, cub_out.data, segments, d_offsets.data, d_offsets.data + 1);
  };
  // Agreement: every segment within a loose relative bound (the trees differ).
  BENCH_CHECK(fold_call());
  BENCH_CHECK(cub_call());
  BENCH_CHECK(cudaDeviceSynchronize());
  std::vector<float> mine(segments), theirs(segments);
  BENCH_CHECK(cudaMemcpy(mine.data(), out.data, segments * sizeof(float), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaMemcpy(theirs.data(), cub_out.data, segments * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < segments; ++i)
  {
    const double len = offsets[i + 1] - offsets[i];
    if (std::fabs(mine[i] - theirs[i]) > 1e-5 * (len + 16))
    {
      state.SkipWithError("fold and cub disagree");
      return;
    }
  }
  const int iterations = 9;
  double fold_s = 0, cub_s = 0;
  for (auto _ : state)
  {
    fold_s = median_seconds(fold_call, iterations);
    cub_s  = median_seconds(cub_call, length == 1 || length == 8 ? 3 : iterations);
    state.SetIterationTime(fold_s);
  }
  // Bytes that must move: the items, the offsets and the results.
  const double bytes               = total_items * 4.0 + offsets.size() * 4.0 + segments * 4.0;
  state.counters["segment_length"] = static_cast<double>(length);
  state.counters["segments"]       = static_cast<double>(segments);
  record(state, "segmented/" + (length == 0 ? std::string("powerlaw") : std::to_string(length)), fold_s, cub_s, bytes);
}

//! Offsets `i * stride` for cub's segmented sum over rows.
struct RowOffset
{
  int stride;
  __host__ __device__ int operator()(int i) const { return i * stride; }
};

//! `[d0, ..., dk]` summed over `axes`: fold, and cub's segmented sum where the reduced axes are the last ones.
void axes_case(benchmark::State& state, std::vector<std::int64_t> shape, std::vector<int> axes, std::string name)
{
  std::size_t items = 1, outputs = 1;
  unsigned mask = 0;
  for (int a : axes)
  {
    mask |= 1u << a;
  }
  for (std::size_t d = 0; d < shape.size(); ++d)
  {
    items *= shape[d];
    outputs *= (mask >> d & 1u) ? 1 : shape[d];
  }
  Buffer<float> in(items), out(outputs), cub_out(outputs);
  bench::fill(in.data, items, 11);
  const fold::Extents extents(shape.data(), static_cast<int>(shape.size()));
  const fold::Axes reduced(axes.data(), static_cast<int>(axes.size()));
  std::size_t fold_bytes = 0;
  BENCH_CHECK(fold::DeviceReduceAxes::Sum(nullptr, fold_bytes, in.data, out.data, extents, reduced));
  Buffer<char> fold_temp(fold_bytes);
  auto fold_call = [&]
  { return fold::DeviceReduceAxes::Sum(fold_temp.data, fold_bytes, in.data, out.data, extents, reduced); };
  // cub applies when the reduced axes are the trailing ones: segments of `items / outputs` items.
  bool trailing = true;
  for (std::size_t d = 0; d < shape.size(); ++d)
  {
    trailing = trailing && (((mask >> d) & 1u) == 0 || (d >= shape.size() - axes.size()));
  }
  const int length      = static_cast<int>(items / outputs);
  auto offsets          = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), RowOffset{length});
  std::size_t cub_bytes = 0;
  if (trailing)
  {
    BENCH_CHECK(cub::DeviceSegmentedReduce::Sum(
        nullptr, cub_bytes, in.data, cub_out.data, static_cast<std::int64_t>(outputs), offsets, offsets + 1));
  }
  Buffer<char> cub_temp(cub_bytes);
  auto cub_call = [&]
  {
    return cub::DeviceSegmentedReduce::Sum(
        cub_temp.data, cub_bytes, in.data, cub_out.data, static_cast<std::int64_t>(outputs), offsets, offsets + 1);
  };
  BENCH_CHECK(fold_call());
  if (trailing)
  {
    BENCH_CHECK(cub_call());
    BENCH_CHECK(cudaDeviceSynchronize());
    std::vector<float> mine(outputs), theirs(outputs);
    BENCH_CHECK(cudaMemcpy(mine.data(), out.data, outputs * sizeof(float), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(theirs.data(), cub_out.data, outputs * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < outputs; ++i)
    {
      if (std::fabs(mine[i] - theirs[i]) > 1e-5 * (length + 16))
      {
        state.SkipWithError("fold and cub disagree");
        return;
      }
    }
  }
  double fold_s = 0, cub_s = 0;
  for (auto _ : state)
  {
    fold_s = median_seconds(fold_call, 9);
    cub_s  = trailing ? median_seconds(cub_call, 9) : 0;
    state.SetIterationTime(fold_s);
  }
  record(state, name, fold_s, cub_s, (items + outputs) * 4.0);
}

void print_table()
{
  std::printf("\n%-34s %12s %12s %9s %9s\n", "case", "fold us", "cub us", "fold/cub", "fold %pk");
  for (const Row& r : rows)
  {
    std::printf("%-34s %12.1f %12.1f %9.3f %9.1f\n",
                r.name.c_str(),
                r.fold_us,
                r.cub_us,
                r.cub_us > 0 ? r.fold_us / r.cub_us : 0.0,
                100.0 * r.bytes / (r.fold_us * 1e-6) / 1e9 / facts.peak_gbps);
  }
}
} // namespace

int main(int argc, char** argv)
{
  benchmark::Initialize(&argc, argv);
  facts = bench::device_facts();
  benchmark::AddCustomContext("device", facts.name);
  benchmark::AddCustomContext("peak_GBps", std::to_string(facts.peak_gbps));
  if (const char* commit = std::getenv("FOLD_COMMIT"))
  {
    benchmark::AddCustomContext("commit", commit);
  }
  std::printf("device: %s, %d SMs, peak %.0f GB/s\n", facts.name.c_str(), facts.sms, facts.peak_gbps);
  for (std::size_t length : {1, 8, 32, 128, 1 << 10, 1 << 15, 1 << 20, 1 << 24, 0})
  {
    const std::string name = "segmented/" + (length == 0 ? std::string("powerlaw") : std::to_string(length));
    benchmark::RegisterBenchmark(name.c_str(), [length](benchmark::State& s) { segmented_case(s, length); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
  const std::vector<std::pair<std::vector<std::int64_t>, std::string>> matrices = {{{1 << 14, 1 << 14}, "16384x16384"},
                                                                                   {{1 << 24, 16}, "16777216x16"},
                                                                                   {{16, 1 << 24}, "16x16777216"},
                                                                                   {{1 << 12, 1 << 16}, "4096x65536"}};
  auto register_axes = [](std::vector<std::int64_t> shape, std::vector<int> axes, std::string name)
  {
    benchmark::RegisterBenchmark(name.c_str(),
                                 [shape, axes, name](benchmark::State& s) { axes_case(s, shape, axes, name); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  };
  for (const auto& [shape, label] : matrices)
  {
    register_axes(shape, {0}, "axes/" + label + "/axis0");
    register_axes(shape, {1}, "axes/" + label + "/axis1");
  }
  register_axes({64, 56, 56, 256}, {0, 1, 2}, "axes/64x56x56x256/axes012");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_table();
  return 0;
}
