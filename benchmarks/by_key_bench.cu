// SPDX-License-Identifier: Apache-2.0
// fold-bench --by-key: fold::DeviceReduce::ReduceByKey beside cub::DeviceReduce::ReduceByKey, one case per key
// type, value type, item count and mean run length, timed as fold-bench times DeviceReduce (fold, cub, cub again,
// interleaved; back to back on one stream). Keys come in runs of geometric random length with the given mean
// (1: every item its own run; 0: one run of every item); values are random. Bytes counted: keys and values read,
// unique keys and aggregates written. Both take an `int` count, as most callers pass (so both use 32-bit
// offsets; every size here fits). Each case first checks that fold and cub find the same runs (and, for
// integer values, the same aggregates).
#include <fold/fold.cuh>

#include "bench_common.cuh"
#include "by_key_bench.h"

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace
{
struct ByKeyResult
{
  std::string keys, values;
  std::size_t n, mean;
  double runs;
  double fold_us, cub_us, cub_again_us, bytes;
};
std::vector<ByKeyResult> by_key_results;
bench::DeviceFacts by_key_facts;
cudaStream_t by_key_stream = nullptr;

//! flags[i] = 1 where a run starts: item 0, and each other item with probability 1 / mean.
__global__ void run_heads(std::int64_t* flags, std::size_t n, std::size_t mean, std::uint64_t seed)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
  {
    flags[i] = i == 0 || (mean != 0 && bench::mix(seed + i) % mean == 0);
  }
}

template <typename KeyT>
__global__ void narrow_keys(const std::int64_t* wide, KeyT* keys, std::size_t n)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
  {
    keys[i] = static_cast<KeyT>(wide[i]);
  }
}

//! One case's buffers (`slices` copies of the keys and values, so that large inputs come from memory) and the
//! two libraries' calls on them.
template <typename KeyT, typename ValueT>
class ByKeyCase
{
public:
  ByKeyCase(std::size_t n, std::size_t mean, int slices)
      : n_(n)
      , slices_(slices)
  {
    BENCH_CHECK(cudaMalloc(&keys_, n * slices * sizeof(KeyT)));
    BENCH_CHECK(cudaMalloc(&values_, n * slices * sizeof(ValueT)));
    BENCH_CHECK(cudaMalloc(&unique_, n * sizeof(KeyT)));
    BENCH_CHECK(cudaMalloc(&aggregates_, n * sizeof(ValueT)));
    BENCH_CHECK(cudaMalloc(&num_runs_, 2 * sizeof(std::int64_t)));
    // Keys: the inclusive sum of the run heads (cub's scan, outside the timing), in each slice.
    std::int64_t* wide = nullptr;
    BENCH_CHECK(cudaMalloc(&wide, n * sizeof(std::int64_t)));
    run_heads<<<1024, 256>>>(wide, n, mean, 99 + n);
    BENCH_CHECK(cudaGetLastError());
    std::size_t scan_bytes = 0;
    BENCH_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, wide, wide, n));
    void* scan_temp = nullptr;
    BENCH_CHECK(cudaMalloc(&scan_temp, scan_bytes));
    BENCH_CHECK(cub::DeviceScan::InclusiveSum(scan_temp, scan_bytes, wide, wide, n));
    for (int s = 0; s < slices; ++s)
    {
      narrow_keys<<<1024, 256>>>(wide, keys_ + s * n, n);
      BENCH_CHECK(cudaGetLastError());
    }
    bench::fill(values_, n * slices, 4321 + n);
    std::int64_t last = 0;
    BENCH_CHECK(cudaMemcpy(&last, wide + n - 1, sizeof(last), cudaMemcpyDeviceToHost));
    runs_ = static_cast<double>(last);
    BENCH_CHECK(cudaFree(scan_temp));
    BENCH_CHECK(cudaFree(wide));
    BENCH_CHECK(fold(nullptr, fold_bytes_, 0));
    BENCH_CHECK(cub(nullptr, cub_bytes_, 0));
    BENCH_CHECK(cudaMalloc(&fold_temp_, fold_bytes_));
    BENCH_CHECK(cudaMalloc(&cub_temp_, cub_bytes_));
  }
  ~ByKeyCase()
  {
    for (void* p : {static_cast<void*>(keys_),
                    static_cast<void*>(values_),
                    static_cast<void*>(unique_),
                    static_cast<void*>(aggregates_),
                    static_cast<void*>(num_runs_),
                    fold_temp_,
                    cub_temp_})
    {
      cudaFree(p);
    }
  }
  ByKeyCase(const ByKeyCase&)            = delete;
  ByKeyCase& operator=(const ByKeyCase&) = delete;

  cudaError_t fold(void* temp, std::size_t& bytes, int slice, cudaStream_t stream = by_key_stream)
  {
    return fold::DeviceReduce::ReduceByKey(temp,
                                           bytes,
                                           keys_ + slice * n_,
                                           unique_,
                                           values_ + slice * n_,
                                           aggregates_,
                                           num_runs_,
                                           fold::Sum{},
                                           static_cast<int>(n_),
                                           stream);
  }
  cudaError_t cub(void* temp, std::size_t& bytes, int slice, cudaStream_t stream = by_key_stream)
  {
    return cub::DeviceReduce::ReduceByKey(temp,
                                          bytes,
                                          keys_ + slice * n_,
                                          unique_,
                                          values_ + slice * n_,
                                          aggregates_,
                                          num_runs_ + 1,
                                          ::cuda::std::plus<>{},
                                          static_cast<int>(n_),
                                          stream);
  }
  cudaError_t fold(int slice, cudaStream_t stream) { return fold(fold_temp_, fold_bytes_, slice, stream); }
  cudaError_t cub(int slice, cudaStream_t stream) { return cub(cub_temp_, cub_bytes_, slice, stream); }

  //! Whether fold and cub find the same runs: their number, keys and (integer values) aggregates.
  bool agree()
  {
    std::vector<KeyT> keys[2];
    std::vector<ValueT> aggregates[2];
    std::int64_t runs[2] = {};
    for (int library = 0; library < 2; ++library)
    {
      BENCH_CHECK(cudaMemset(unique_, 0xA5, n_ * sizeof(KeyT)));
      if ((library == 0 ? fold(0, by_key_stream) : cub(0, by_key_stream)) != cudaSuccess)
      {
        return false;
      }
      BENCH_CHECK(cudaStreamSynchronize(by_key_stream));
      BENCH_CHECK(cudaMemcpy(runs, num_runs_, sizeof(runs), cudaMemcpyDeviceToHost));
      const std::int64_t r = runs[library];
      if (r != static_cast<std::int64_t>(runs_))
      {
        return false;
      }
      keys[library].resize(r);
      aggregates[library].resize(r);
      BENCH_CHECK(cudaMemcpy(keys[library].data(), unique_, r * sizeof(KeyT), cudaMemcpyDeviceToHost));
      BENCH_CHECK(cudaMemcpy(aggregates[library].data(), aggregates_, r * sizeof(ValueT), cudaMemcpyDeviceToHost));
    }
    return keys[0] == keys[1] && (std::is_floating_point_v<ValueT> || aggregates[0] == aggregates[1]);
  }

  int slices() const { return slices_; }
  double runs() const { return runs_; }

private:
  std::size_t n_;
  int slices_;
  double runs_            = 0;
  KeyT* keys_             = nullptr;
  ValueT* values_         = nullptr;
  KeyT* unique_           = nullptr;
  ValueT* aggregates_     = nullptr;
  std::int64_t* num_runs_ = nullptr;
  void* fold_temp_        = nullptr;
  void* cub_temp_         = nullptr;
  std::size_t fold_bytes_ = 0, cub_bytes_ = 0;
};

template <typename KeyT, typename ValueT>
void run_by_key(benchmark::State& state, std::size_t n, std::size_t mean)
{
  const std::size_t in_bytes = n * (sizeof(KeyT) + sizeof(ValueT));
  ByKeyCase<KeyT, ValueT> c(n, mean, bench::slices_for(by_key_facts, in_bytes));
  if (!c.agree())
  {
    state.SkipWithError("fold and cub disagree (or a call failed)");
    return;
  }
  const int calls = bench::calls_per_sample(n);
  const int third = c.slices() / 3;
  auto call_fold  = [&](int s, cudaStream_t st) { return c.fold(s, st); };
  auto call_cub   = [&](int s, cudaStream_t st) { return c.cub(s, st); };
  bench::Sampler fold(call_fold, c.slices(), calls, false, by_key_stream);
  bench::Sampler cub(call_cub, c.slices(), calls, false, by_key_stream, third);
  bench::Sampler cub_again(call_cub, c.slices(), calls, false, by_key_stream, 2 * third);
  std::vector<double> fold_s, cub_s, cub_again_s;
  for (auto _ : state)
  {
    fold_s.push_back(fold.sample());
    cub_s.push_back(cub.sample());
    cub_again_s.push_back(cub_again.sample());
    state.SetIterationTime(fold_s.back());
  }
  for (cudaError_t status : {fold.status(), cub.status(), cub_again.status()})
  {
    if (status != cudaSuccess)
    {
      state.SkipWithError(cudaGetErrorString(status));
      return;
    }
  }
  const double fold_t = bench::median(fold_s), cub_t = bench::median(cub_s), cub_again_t = bench::median(cub_again_s);
  const double bytes               = static_cast<double>(in_bytes) + c.runs() * (sizeof(KeyT) + sizeof(ValueT));
  const double fold_gbps           = bytes / fold_t / 1e9;
  state.counters["n"]              = static_cast<double>(n);
  state.counters["mean_run"]       = static_cast<double>(mean);
  state.counters["runs"]           = c.runs();
  state.counters["bytes"]          = bytes;
  state.counters["fold_us"]        = fold_t * 1e6;
  state.counters["cub_us"]         = cub_t * 1e6;
  state.counters["cub_again_us"]   = cub_again_t * 1e6;
  state.counters["fold_over_cub"]  = fold_t / cub_t;
  state.counters["cub_spread"]     = cub_again_t / cub_t;
  state.counters["fold_peak_frac"] = fold_gbps / by_key_facts.peak_gbps;
  state.counters["cub_peak_frac"]  = bytes / cub_t / 1e9 / by_key_facts.peak_gbps;
  by_key_results.push_back({bench::type_name<KeyT>(),
                            bench::type_name<ValueT>(),
                            n,
                            mean,
                            c.runs(),
                            fold_t * 1e6,
                            cub_t * 1e6,
                            cub_again_t * 1e6,
                            bytes});
}

template <typename KeyT, typename ValueT>
void register_pair(const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& means)
{
  for (const std::size_t n : sizes)
  {
    // Inputs in slices, outputs as large as the input and the setup's 8-byte keys: keep to 60 % of the memory (int64
    // keys and double values at 2^30 take 43 GB of an 80 GB H100).
    const std::size_t slices =
        static_cast<std::size_t>(bench::slices_for(by_key_facts, n * (sizeof(KeyT) + sizeof(ValueT))));
    if ((slices + 1) * n * (sizeof(KeyT) + sizeof(ValueT)) + n * sizeof(std::int64_t) > by_key_facts.memory / 5 * 3)
    {
      continue;
    }
    for (const std::size_t mean : means)
    {
      const std::string name = std::string("ReduceByKey/") + bench::type_name<KeyT>() + "," +
                               bench::type_name<ValueT>() + "/" + std::to_string(n) + "/run" + std::to_string(mean);
      auto* b = benchmark::RegisterBenchmark(name.c_str(),
                                             [n, mean](benchmark::State& s) { run_by_key<KeyT, ValueT>(s, n, mean); });
      b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(15);
    }
  }
}
} // namespace

void register_by_key(const bench::DeviceFacts& facts, cudaStream_t stream, bool full)
{
  by_key_facts  = facts;
  by_key_stream = stream;
  std::vector<std::size_t> sizes;
  for (int log2 = 10; log2 <= 30; log2 += full ? 2 : 4)
  {
    sizes.push_back(std::size_t{1} << log2);
  }
  const std::vector<std::size_t> means{1, 2, 8, 64, 1024, std::size_t{1} << 20, 0};
  register_pair<std::int32_t, float>(sizes, means);
  register_pair<std::int32_t, std::int32_t>(sizes, means);
  register_pair<std::int64_t, double>(sizes, means);
  if (full)
  {
    register_pair<std::int64_t, float>(sizes, means);
    register_pair<std::int64_t, std::int32_t>(sizes, means);
    register_pair<std::int32_t, double>(sizes, means);
  }
}

void print_by_key_table()
{
  std::printf("\n%-6s %-7s %12s %8s %11s %11s %9s %10s %8s %8s\n",
              "keys",
              "values",
              "items",
              "mean run",
              "fold us",
              "cub us",
              "fold/cub",
              "cub spread",
              "fold %pk",
              "cub %pk");
  for (const ByKeyResult& r : by_key_results)
  {
    const double fold_gbps = r.bytes / (r.fold_us * 1e-6) / 1e9;
    const double cub_gbps  = r.bytes / (r.cub_us * 1e-6) / 1e9;
    std::printf("%-6s %-7s %12zu %8s %11.2f %11.2f %9.3f %10.3f %8.1f %8.1f\n",
                r.keys.c_str(),
                r.values.c_str(),
                r.n,
                r.mean == 0 ? "all" : std::to_string(r.mean).c_str(),
                r.fold_us,
                r.cub_us,
                r.fold_us / r.cub_us,
                r.cub_again_us / r.cub_us,
                100 * fold_gbps / by_key_facts.peak_gbps,
                100 * cub_gbps / by_key_facts.peak_gbps);
  }
}
