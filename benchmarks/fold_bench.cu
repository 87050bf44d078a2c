// SPDX-License-Identifier: Apache-2.0
// fold-bench: fold::DeviceReduce and cub::DeviceReduce side by side, in one binary and one run, on the same
// buffers. Each case (operation, type, size, timing mode) times fold, cub and cub a second time, interleaved:
// the second cub timing against the first is the run-to-run spread, the yardstick for "faster" and "slower".
//
// Timing modes (all on one created, non-blocking stream; `--legacy-stream` uses stream 0 instead):
//   kernel  events around one call; the median over many calls
//   stream  events around K calls issued back to back on one stream (what an application issuing many
//           reductions sees, host work included); the median over iterations of the time per call
//   graph   K calls captured once into a CUDA graph, events around each replay: the time per call with the host
//           out of the picture (sizes up to 2^24 only)
// Inputs of one case rotate among slices of a pool of at least 4x the L2 size (up to 64 slices), so that large
// inputs are read from memory, not from cache; inputs larger than that are read once per call anyway.
//
//   fold-bench                      a default subset (about a minute) and a compact table
//   fold-bench --full               the whole matrix: int8 int32 int64 float double half bfloat16 x
//                                   Sum Min ArgMax Custom x 2^10..2^30 (x4) x kernel/stream (uint8 and
//                                   int16: Sum Min ArgMax at even powers of two), and for
//                                   int32 float double: CustomC (Custom declared commutative) and SumG2G
//                                   (Sum with fold::gpu_to_gpu); the fused families, each against cub's two
//                                   calls (its "cub" column): MinMax (cub Min + Max) and ArgMinMax (cub ArgMin +
//                                   ArgMax) over every type, VarMean (cub: a sum, then a sum of squared
//                                   deviations) over the four floating types (torch: benchmarks/torch_fused.py)
//   fold-bench --verbose            Google Benchmark's own console output as well
//   fold-bench --commit=<hash>      recorded in the JSON context (also from $FOLD_COMMIT)
//   fold-bench --sweep              the launch sweep behind the sm_90 policy: fold's time per path (single-pass,
//                                   two-pass, pass 1 at 1 or 4 waves), with and without programmatic dependent
//                                   launch, and on the legacy stream, next to cub's
//   fold-bench --host               the host's cost per call: bare launches of an empty kernel, fold and cub
//   fold-bench --by-key [--full]    ReduceByKey beside cub's instead (by_key_bench.cu): int32/float,
//                                   int32/int32, int64/double keys/values (--full: also int64/float,
//                                   int64/int32, int32/double) x 2^10..2^30 x mean run 1..2^20 and one run
//   plus any Google Benchmark flag, e.g. --benchmark_out=results.json --benchmark_out_format=json
#include <fold/fold.cuh>

#include "bench_common.cuh"
#include "by_key_bench.h"
#include "bench_forced.cuh"

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace
{
enum class Op
{
  sum,
  min,
  argmax,
  custom,             //!< a user operator: fold keeps the items' order
  custom_commutative, //!< the same operator declared commutative (fold::commutative): fold's fast path
  sum_gpu_to_gpu,     //!< Sum with fold::gpu_to_gpu (cub: its default Sum)
  minmax,             //!< fold's MinMax, one pass (cub: Min, then Max)
  argminmax,          //!< fold's ArgMinMax, one pass (cub: ArgMin, then ArgMax)
  var_mean,           //!< fold's VarMean, one pass (cub: the sum, then the sum of squared deviations from its mean)
};
const char* op_name(Op op)
{
  switch (op)
  {
  case Op::sum:
    return "Sum";
  case Op::min:
    return "Min";
  case Op::argmax:
    return "ArgMax";
  case Op::custom:
    return "Custom";
  case Op::custom_commutative:
    return "CustomC";
  case Op::minmax:
    return "MinMax";
  case Op::argminmax:
    return "ArgMinMax";
  case Op::var_mean:
    return "VarMean";
  default:
    return "SumG2G";
  }
}

enum class Mode
{
  kernel,
  stream,
  graph,
};
const char* mode_name(Mode mode)
{
  return mode == Mode::kernel ? "kernel" : mode == Mode::stream ? "stream" : "graph";
}

//! A user operator neither library knows: both take their generic path (fold's keeps the order of the items
//! unless the operator is declared commutative).
struct CustomSum
{
  template <typename T>
  __host__ __device__ T operator()(const T& a, const T& b) const
  {
    return static_cast<T>(a + b);
  }
};

//! What VarMean accumulates `T` in: also the type of its outputs here, and of cub's two passes.
template <typename T>
using moments_t = fold::detail::moments_accum_t<T>;

//! cub's second pass of the variance: `(x - sum / n)^2`, the sum read from the device (the first pass wrote it).
template <typename T>
struct SquaredDeviation
{
  const moments_t<T>* sum;
  moments_t<T> n;
  __host__ __device__ moments_t<T> operator()(const T& x) const
  {
    const moments_t<T> d = fold::detail::convert<moments_t<T>>(x) - *sum / n;
    return d * d;
  }
};

//! cub's first pass: the items converted to the accumulator (so that 16-bit floats sum in float).
template <typename T>
struct ToMoments
{
  __host__ __device__ moments_t<T> operator()(const T& x) const { return fold::detail::convert<moments_t<T>>(x); }
};

bench::DeviceFacts facts;
cudaStream_t bench_stream = nullptr; //!< where every timed call runs

struct Result
{
  std::string op, type, mode;
  std::size_t n;
  double fold_us, cub_us, cub_again_us;
  double bytes;
};
std::vector<Result> results;

//! One case's buffers and the two libraries' calls on them.
template <typename T, Op O>
class Case
{
public:
  Case(std::size_t n, int slices)
      : n_(n)
      , stride_((n + 255) / 256 * 256)
      , slices_(slices)
  {
    BENCH_CHECK(cudaMalloc(&pool_, stride_ * slices_ * sizeof(T)));
    bench::fill(pool_, stride_ * slices_, 1234 + n);
    BENCH_CHECK(cudaMalloc(&out_, 4 * sizeof(T)));
    BENCH_CHECK(cudaMalloc(&index_, 4 * sizeof(std::int64_t)));
    BENCH_CHECK(cudaMalloc(&moments_, 4 * sizeof(double)));
    std::size_t fold_bytes = 0, cub_bytes = 0;
    BENCH_CHECK(fold_call(nullptr, fold_bytes, 0, 0));
    BENCH_CHECK(cub_call(nullptr, cub_bytes, 0, 0));
    fold_bytes_ = fold_bytes;
    cub_bytes_  = cub_bytes;
    BENCH_CHECK(cudaMalloc(&fold_temp_, fold_bytes));
    BENCH_CHECK(cudaMalloc(&cub_temp_, cub_bytes));
    BENCH_CHECK(cudaDeviceSynchronize());
  }
  ~Case()
  {
    cudaFree(pool_);
    cudaFree(out_);
    cudaFree(index_);
    cudaFree(moments_);
    cudaFree(fold_temp_);
    cudaFree(cub_temp_);
  }

  cudaError_t fold(int slice, cudaStream_t stream) { return fold_call(fold_temp_, fold_bytes_, slice, stream); }
  //! fold under the sweep's forced hooks (`bench::forced`); call `reserve_for_sweep` first.
  cudaError_t fold_forced(int slice, cudaStream_t stream)
  {
    return fold_call(fold_temp_, fold_bytes_, slice, stream, bench::forced);
  }
  //! Grows fold's storage to the most any forced variant needs (two-pass at 4 waves).
  void reserve_for_sweep()
  {
    std::size_t bytes   = 0;
    bench::forced_hooks = {fold::detail::ReducePath::two_pass, 0, 4};
    BENCH_CHECK(fold_call(nullptr, bytes, 0, 0, bench::forced));
    bench::forced_hooks = {};
    if (bytes > fold_bytes_)
    {
      BENCH_CHECK(cudaFree(fold_temp_));
      BENCH_CHECK(cudaMalloc(&fold_temp_, bytes));
      fold_bytes_ = bytes;
    }
  }
  cudaError_t cub(int slice, cudaStream_t stream) { return cub_call(cub_temp_, cub_bytes_, slice, stream); }
  int slices() const { return slices_; }

  //! Whether fold's and cub's results on slice 0 agree (exactly where both must be exact).
  bool agree()
  {
    if (fold(0, 0) != cudaSuccess || cub(0, 0) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
    {
      return false;
    }
    T values[4];
    std::int64_t indices[4];
    BENCH_CHECK(cudaMemcpy(values, out_, sizeof(values), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(indices, index_, sizeof(indices), cudaMemcpyDeviceToHost));
    constexpr bool is_float = fold::is_floating_v<T>;
    if constexpr (O == Op::minmax || O == Op::argminmax)
    {
      const bool same_indices = O == Op::minmax || (indices[0] == indices[2] && indices[1] == indices[3]);
      return std::memcmp(&values[0], &values[2], 2 * sizeof(T)) == 0 && same_indices;
    }
    else if constexpr (O == Op::var_mean)
    {
      // fold's variance and mean, against cub's sum of squared deviations and sum.
      moments_t<T> m[4];
      BENCH_CHECK(cudaMemcpy(m, moments_, sizeof(m), cudaMemcpyDeviceToHost));
      const double n = static_cast<double>(n_), var = m[0], mean = m[1], sum = m[2], m2 = m[3];
      return std::fabs(var * (n - 1) - m2) <= 1e-3 * m2 &&
             std::fabs(mean * n - sum) <= 1e-3 * n + 1e-3 * std::fabs(sum);
    }
    else if constexpr (O == Op::argmax)
    {
      return std::memcmp(&values[0], &values[1], sizeof(T)) == 0 && indices[0] == indices[1];
    }
    else if constexpr (O == Op::min || !is_float)
    {
      return std::memcmp(&values[0], &values[1], sizeof(T)) == 0;
    }
    else if constexpr (fold::is_16bit_float_v<T>)
    {
      return true; // cub sums 16-bit floats in 16 bits: its result is too coarse to compare with
    }
    else
    {
      const double a = values[0], b = values[1];
      return std::fabs(a - b) <= 1e-4 * std::sqrt(static_cast<double>(n_)) + 1e-6;
    }
  }

private:
  const T* input(int slice) const { return pool_ + static_cast<std::size_t>(slice) * stride_; }

  //! fold's call; `option` replaces fold's default trailing argument (not for `sum_gpu_to_gpu`, which has its own).
  template <typename OptionT = fold::run_to_run_t>
  cudaError_t fold_call(void* temp, std::size_t& bytes, int slice, cudaStream_t stream, OptionT option = {})
  {
    const T* in = input(slice);
    if constexpr (O == Op::sum)
      return fold::DeviceReduce::Sum(temp, bytes, in, out_, n_, stream, option);
    else if constexpr (O == Op::min)
      return fold::DeviceReduce::Min(temp, bytes, in, out_, n_, stream, option);
    else if constexpr (O == Op::argmax)
      return fold::DeviceReduce::ArgMax(temp, bytes, in, out_, index_, n_, stream, option);
    else if constexpr (O == Op::custom)
      return fold::DeviceReduce::Reduce(temp, bytes, in, out_, n_, CustomSum{}, T{}, stream, option);
    else if constexpr (O == Op::custom_commutative)
      return fold::DeviceReduce::Reduce(temp, bytes, in, out_, n_, fold::commutative(CustomSum{}), T{}, stream, option);
    else if constexpr (O == Op::minmax)
      return fold::DeviceReduce::MinMax(temp, bytes, in, out_, out_ + 1, n_, stream, option);
    else if constexpr (O == Op::argminmax)
      return fold::DeviceReduce::ArgMinMax(temp, bytes, in, out_, index_, out_ + 1, index_ + 1, n_, stream, option);
    else if constexpr (O == Op::var_mean)
    {
      auto* m = static_cast<moments_t<T>*>(moments_);
      return fold::DeviceReduce::VarMean(temp, bytes, in, m, m + 1, n_, 1.0, stream, option);
    }
    else
      return fold::DeviceReduce::Sum(temp, bytes, in, out_, n_, stream, fold::gpu_to_gpu);
  }

  cudaError_t cub_call(void* temp, std::size_t& bytes, int slice, cudaStream_t stream)
  {
    const T* in  = input(slice);
    const auto n = static_cast<std::int64_t>(n_);
    if constexpr (O == Op::sum || O == Op::sum_gpu_to_gpu)
      return cub::DeviceReduce::Sum(temp, bytes, in, out_ + 1, n, stream);
    else if constexpr (O == Op::min)
      return cub::DeviceReduce::Min(temp, bytes, in, out_ + 1, n, stream);
    else if constexpr (O == Op::argmax)
      return cub::DeviceReduce::ArgMax(temp, bytes, in, out_ + 1, index_ + 1, n, stream);
    else if constexpr (O == Op::minmax)
      return cub_twice(
          temp,
          bytes,
          [&](void* t, std::size_t& b) { return cub::DeviceReduce::Min(t, b, in, out_ + 2, n, stream); },
          [&](void* t, std::size_t& b) { return cub::DeviceReduce::Max(t, b, in, out_ + 3, n, stream); });
    else if constexpr (O == Op::argminmax)
      return cub_twice(
          temp,
          bytes,
          [&](void* t, std::size_t& b) { return cub::DeviceReduce::ArgMin(t, b, in, out_ + 2, index_ + 2, n, stream); },
          [&](void* t, std::size_t& b)
          { return cub::DeviceReduce::ArgMax(t, b, in, out_ + 3, index_ + 3, n, stream); });
    else if constexpr (O == Op::var_mean)
    {
      using A = moments_t<T>;
      A* m    = static_cast<A*>(moments_);
      return cub_twice(
          temp,
          bytes,
          [&](void* t, std::size_t& b) {
            return cub::DeviceReduce::TransformReduce(
                t, b, in, m + 2, n, ::cuda::std::plus<A>{}, ToMoments<T>{}, A{}, stream);
          },
          [&](void* t, std::size_t& b)
          {
            return cub::DeviceReduce::TransformReduce(t,
                                                      b,
                                                      in,
                                                      m + 3,
                                                      n,
                                                      ::cuda::std::plus<A>{},
                                                      SquaredDeviation<T>{m + 2, static_cast<A>(n_)},
                                                      A{},
                                                      stream);
          });
    }
    else
      return cub::DeviceReduce::Reduce(temp, bytes, in, out_ + 1, n, CustomSum{}, T{}, stream);
  }

  //! Two cub calls one after the other on one stream, sharing one temporary storage: the size query asks both and
  //! keeps the larger.
  template <typename FirstT, typename SecondT>
  static cudaError_t cub_twice(void* temp, std::size_t& bytes, FirstT first, SecondT second)
  {
    if (temp == nullptr)
    {
      std::size_t first_bytes = 0, second_bytes = 0;
      const cudaError_t error = first(nullptr, first_bytes);
      if (error != cudaSuccess)
        return error;
      const cudaError_t again = second(nullptr, second_bytes);
      bytes                   = std::max(first_bytes, second_bytes);
      return again;
    }
    const cudaError_t error = first(temp, bytes);
    return error != cudaSuccess ? error : second(temp, bytes);
  }

  std::size_t n_, stride_;
  int slices_;
  T* pool_                = nullptr;
  T* out_                 = nullptr;
  std::int64_t* index_    = nullptr;
  void* moments_          = nullptr; //!< VarMean's outputs (var, mean), then cub's (sum, sum of squared deviations)
  void* fold_temp_        = nullptr;
  void* cub_temp_         = nullptr;
  std::size_t fold_bytes_ = 0, cub_bytes_ = 0;
};

int kernel_iterations(std::size_t n)
{
  return n <= (1u << 20) ? 300 : n <= (1u << 24) ? 100 : n <= (1u << 28) ? 30 : 10;
}
int samples_per_case(std::size_t n, Mode mode)
{
  return mode == Mode::kernel ? kernel_iterations(n) : 15;
}

//! A sampler of `call(slice, stream)` in `mode` on `bench_stream`.
template <typename CallT>
bench::Sampler<CallT> sampler(CallT call, int slices, std::size_t n, Mode mode, int first_slice = 0)
{
  return bench::Sampler<CallT>(call,
                               slices,
                               mode == Mode::kernel ? 1 : bench::calls_per_sample(n),
                               mode == Mode::graph,
                               bench_stream,
                               first_slice);
}

template <typename T, Op O>
void run_case(benchmark::State& state, std::size_t n, Mode mode)
{
  const std::size_t bytes = n * sizeof(T);
  Case<T, O> c(n, bench::slices_for(facts, bytes));
  if (!c.agree())
  {
    state.SkipWithError("fold and cub disagree (or a call failed)");
    return;
  }
  // A third of the pool apart: in kernel mode, starting together, cub and cub again would read the slice fold
  // had just read, from the L2 whenever it fits there (up to ~2^23 floats).
  const int third = c.slices() / 3;
  auto fold       = sampler([&](int s, cudaStream_t st) { return c.fold(s, st); }, c.slices(), n, mode);
  auto cub        = sampler([&](int s, cudaStream_t st) { return c.cub(s, st); }, c.slices(), n, mode, third);
  auto cub_again  = sampler([&](int s, cudaStream_t st) { return c.cub(s, st); }, c.slices(), n, mode, 2 * third);
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
  const double fold_gbps = bytes / fold_t / 1e9, cub_gbps = bytes / cub_t / 1e9;
  state.counters["n"]                 = static_cast<double>(n);
  state.counters["bytes"]             = static_cast<double>(bytes);
  state.counters["fold_us"]           = fold_t * 1e6;
  state.counters["cub_us"]            = cub_t * 1e6;
  state.counters["cub_again_us"]      = cub_again_t * 1e6;
  state.counters["fold_over_cub"]     = fold_t / cub_t;
  state.counters["cub_spread"]        = cub_again_t / cub_t;
  state.counters["fold_GBps"]         = fold_gbps;
  state.counters["cub_GBps"]          = cub_gbps;
  state.counters["fold_peak_frac"]    = fold_gbps / facts.peak_gbps;
  state.counters["cub_peak_frac"]     = cub_gbps / facts.peak_gbps;
  state.counters["fold_ceiling_frac"] = fold_gbps / facts.ceiling_gbps;
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  results.push_back({op_name(O),
                     bench::type_name<T>(),
                     mode_name(mode),
                     n,
                     fold_t * 1e6,
                     cub_t * 1e6,
                     cub_again_t * 1e6,
                     static_cast<double>(bytes)});
}

template <typename T, Op O>
void register_case(std::size_t n, Mode mode)
{
  // The pool (at least one input) and the temporary storage must fit with room to spare.
  if (n * sizeof(T) > facts.memory / 3)
  {
    return;
  }
  const std::string name =
      std::string(op_name(O)) + "/" + bench::type_name<T>() + "/" + std::to_string(n) + "/" + mode_name(mode);
  auto* b = benchmark::RegisterBenchmark(name.c_str(),
                                         [n, mode](benchmark::State& state) { run_case<T, O>(state, n, mode); });
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
  b->Iterations(samples_per_case(n, mode));
}

//! Registers operations `Ops...` over `T` at each size, in every mode (graphs up to 2^24 items), one operation after
//! the other. Only the cases registered are compiled.
template <typename T, Op... Ops>
void register_type(const std::vector<std::size_t>& sizes)
{
  auto one_op = [&](auto op)
  {
    for (std::size_t n : sizes)
    {
      for (Mode mode : {Mode::kernel, Mode::stream, Mode::graph})
      {
        if (mode != Mode::graph || n <= (std::size_t{1} << 24))
        {
          register_case<T, decltype(op)::value>(n, mode);
        }
      }
    }
  };
  (one_op(std::integral_constant<Op, Ops>{}), ...);
}

//! Prints a dot per case instead of Google Benchmark's wide console lines.
class ProgressReporter : public benchmark::BenchmarkReporter
{
public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override
  {
    for (const Run& run : runs)
    {
      if (run.error_occurred)
      {
        std::fprintf(stderr, "\n%s: %s\n", run.benchmark_name().c_str(), run.error_message.c_str());
      }
    }
    std::fputc('.', stderr);
    std::fflush(stderr);
  }
};

//! One column of the launch sweep: fold under a dispatch override, or cub, on the created stream or stream 0.
struct SweepVariant
{
  const char* name;
  bool cub;
  fold::detail::DispatchHooks forced;
  bool legacy_stream;
};

//! The median seconds per call of one variant in one mode; 0 where it does not apply (no graph on stream 0).
template <typename T, Op O>
double sweep_seconds(Case<T, O>& c, std::size_t n, Mode mode, const SweepVariant& v)
{
  if (v.legacy_stream && mode == Mode::graph)
  {
    return 0;
  }
  const cudaStream_t stream = bench_stream;
  bench_stream              = v.legacy_stream ? nullptr : stream;
  bench::forced_hooks       = v.forced;
  double t                  = 0;
  {
    auto timed = sampler(
        [&](int s, cudaStream_t st) { return v.cub ? c.cub(s, st) : c.fold_forced(s, st); }, c.slices(), n, mode);
    std::vector<double> samples;
    for (int r = 0; r < samples_per_case(n, mode); ++r)
    {
      samples.push_back(timed.sample());
    }
    BENCH_CHECK(timed.status());
    t = bench::median(samples);
  }
  bench::forced_hooks = {};
  bench_stream        = stream;
  return t;
}

template <typename T, Op O>
void sweep_one()
{
  using fold::detail::ReducePath;
  const SweepVariant variants[] = {
      {"cub", true, {}, false},
      {"auto", false, {}, false},
      {"auto-serial", false, {ReducePath::automatic, 0, 0, 0, true}, false},
      {"1tile", false, {ReducePath::single_tile}, false},
      {"1pass-1w", false, {ReducePath::single_pass, 0, 1}, false},
      {"1pass-1w-serial", false, {ReducePath::single_pass, 0, 1, 0, true}, false},
      {"2pass-1w", false, {ReducePath::two_pass, 0, 1}, false},
      {"2pass-4w", false, {ReducePath::two_pass, 0, 4}, false},
      {"cub-legacy", true, {}, true},
      {"auto-legacy", false, {}, true},
  };
  for (int log2 = 13; log2 <= 30; log2 += log2 < 24 ? 1 : 2)
  {
    const std::size_t n = std::size_t{1} << log2;
    if (n * sizeof(T) > facts.memory / 3)
      continue;
    Case<T, O> c(n, bench::slices_for(facts, n * sizeof(T)));
    c.reserve_for_sweep();
    const bool one_tile_too = log2 <= 17; // a single block over more than a few tiles only gets slower
    for (Mode mode : {Mode::kernel, Mode::stream, Mode::graph})
    {
      std::printf("%-7s %-9s 2^%-3d %-7s", op_name(O), bench::type_name<T>(), log2, mode_name(mode));
      for (const SweepVariant& v : variants)
      {
        const bool skip = v.forced.path == fold::detail::ReducePath::single_tile && !one_tile_too;
        std::printf(" %s %.2f", v.name, skip ? 0.0 : sweep_seconds(c, n, mode, v) * 1e6);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
}

void sweep()
{
  std::printf("launch sweep: median us per call of cub and of fold per path (1pass = single-pass, 2pass = two-pass, "
              "pass 1 at 1 or 4 waves; -serial: without programmatic dependent launch; -legacy: on stream 0), "
              "on %d SMs\n",
              facts.sms);
  sweep_one<float, Op::sum>();
  sweep_one<std::int8_t, Op::sum>();
  sweep_one<__half, Op::sum>();
  sweep_one<double, Op::sum>();
  sweep_one<float, Op::min>();
  sweep_one<float, Op::argmax>();
  sweep_one<std::int8_t, Op::argmax>();
}

__global__ void EmptyKernel() {}

//! The host's time per call of `call(i)` (which issues one call on `bench_stream`), and the time per call until
//! the GPU has run them: the medians over rounds of `calls` calls issued back to back after a synchronise. A
//! round is short enough that the launch queue never fills, so the host never waits for the GPU: the first
//! number is the host's own cost, the second shows whether the GPU keeps up.
template <typename CallT>
std::pair<double, double> host_seconds(CallT&& call, int calls = 256, int rounds = 31)
{
  using clock = std::chrono::steady_clock;
  std::vector<double> host, total;
  for (int r = 0; r < rounds; ++r)
  {
    BENCH_CHECK(cudaStreamSynchronize(bench_stream));
    const auto start = clock::now();
    for (int i = 0; i < calls; ++i)
    {
      BENCH_CHECK(call(i));
    }
    const auto issued = clock::now();
    BENCH_CHECK(cudaStreamSynchronize(bench_stream));
    const auto done = clock::now();
    host.push_back(std::chrono::duration<double>(issued - start).count() / calls);
    total.push_back(std::chrono::duration<double>(done - start).count() / calls);
  }
  return {bench::median(host), bench::median(total)};
}

template <typename T, Op O>
void host_cost_one(std::size_t n)
{
  Case<T, O> c(n, bench::slices_for(facts, n * sizeof(T)));
  const int slices = c.slices();
  auto report      = [&](const char* who, std::pair<double, double> t)
  {
    std::printf("%-7s %-9s 2^%-3d %-5s host %6.2f us/call, until done %6.2f us/call\n",
                op_name(O),
                bench::type_name<T>(),
                static_cast<int>(std::log2(static_cast<double>(n))),
                who,
                t.first * 1e6,
                t.second * 1e6);
  };
  report("fold", host_seconds([&](int i) { return c.fold(i % slices, bench_stream); }));
  report("cub", host_seconds([&](int i) { return c.cub(i % slices, bench_stream); }));
}

//! The host's cost per call (`--host`): bare launches of an empty kernel (the floor any library pays), then fold
//! and cub over sizes that take each of fold's paths.
void host_cost()
{
  auto bare = host_seconds(
      [](int)
      {
        EmptyKernel<<<1, 256, 0, bench_stream>>>();
        return cudaGetLastError();
      });
  std::printf("empty kernel, <<<>>>:                    host %6.2f us/call, until done %6.2f us/call\n",
              bare.first * 1e6,
              bare.second * 1e6);
  auto ex = host_seconds([](int) { return fold::detail::launch(EmptyKernel, 1, 256, bench_stream, true); });
  std::printf("empty kernel, cudaLaunchKernelEx + PDL:  host %6.2f us/call, until done %6.2f us/call\n",
              ex.first * 1e6,
              ex.second * 1e6);
  for (int log2 : {10, 16, 20, 24})
  {
    host_cost_one<float, Op::sum>(std::size_t{1} << log2);
  }
  host_cost_one<float, Op::argmax>(std::size_t{1} << 20);
  host_cost_one<double, Op::sum>(std::size_t{1} << 20);
}

void print_table()
{
  std::printf("\n%-7s %-9s %12s %-7s %11s %11s %9s %10s %9s %9s %9s\n",
              "op",
              "type",
              "items",
              "mode",
              "fold us",
              "cub us",
              "fold/cub",
              "cub spread",
              "fold GB/s",
              "% peak",
              "% ceil");
  for (const Result& r : results)
  {
    const double gbps = r.bytes / (r.fold_us * 1e-6) / 1e9;
    std::printf("%-7s %-9s %12zu %-7s %11.2f %11.2f %9.3f %10.3f %9.0f %9.1f %9.1f\n",
                r.op.c_str(),
                r.type.c_str(),
                r.n,
                r.mode.c_str(),
                r.fold_us,
                r.cub_us,
                r.fold_us / r.cub_us,
                r.cub_again_us / r.cub_us,
                gbps,
                100 * gbps / facts.peak_gbps,
                100 * gbps / facts.ceiling_gbps);
  }
}
} // namespace

int main(int argc, char** argv)
{
  bool full = false, verbose = false, run_sweep = false, run_host = false, legacy_stream = false, by_key = false;
  std::string commit = std::getenv("FOLD_COMMIT") ? std::getenv("FOLD_COMMIT") : "unknown";
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i)
  {
    if (std::strcmp(argv[i], "--full") == 0)
      full = true;
    else if (std::strcmp(argv[i], "--verbose") == 0)
      verbose = true;
    else if (std::strcmp(argv[i], "--sweep") == 0)
      run_sweep = true;
    else if (std::strcmp(argv[i], "--host") == 0)
      run_host = true;
    else if (std::strcmp(argv[i], "--by-key") == 0)
      by_key = true;
    else if (std::strcmp(argv[i], "--legacy-stream") == 0)
      legacy_stream = true;
    else if (std::strncmp(argv[i], "--commit=", 9) == 0)
      commit = argv[i] + 9;
    else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
    {
      std::printf("usage: fold-bench [--full | --sweep | --host | --by-key [--full]] [--legacy-stream] [--verbose] "
                  "[--commit=<hash>] "
                  "[Google Benchmark flags]\n");
      return 0;
    }
    else
      rest.push_back(argv[i]);
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data()))
  {
    return 2;
  }

  facts              = bench::device_facts();
  facts.ceiling_gbps = bench::measure_read_ceiling(facts);
  if (!legacy_stream)
  {
    BENCH_CHECK(cudaStreamCreateWithFlags(&bench_stream, cudaStreamNonBlocking));
  }
  benchmark::AddCustomContext("device", facts.name);
  benchmark::AddCustomContext("sms", std::to_string(facts.sms));
  benchmark::AddCustomContext("peak_GBps", std::to_string(facts.peak_gbps));
  benchmark::AddCustomContext("ceiling_GBps", std::to_string(facts.ceiling_gbps));
  benchmark::AddCustomContext("commit", commit);
  benchmark::AddCustomContext("matrix", std::string(by_key ? "by-key " : "") + (full ? "full" : "default"));
  benchmark::AddCustomContext("stream", legacy_stream ? "legacy" : "created, non-blocking");
  std::printf(
      "device: %s, %d SMs, L2 %zu MB; peak %.0f GB/s (memory clock x bus width), measured read ceiling %.0f GB/s\n",
      facts.name.c_str(),
      facts.sms,
      facts.l2_bytes >> 20,
      facts.peak_gbps,
      facts.ceiling_gbps);

  if (run_sweep)
  {
    sweep();
    return 0;
  }
  if (run_host)
  {
    host_cost();
    return 0;
  }

  std::vector<std::size_t> sizes, every_size;
  for (int log2 = 10; log2 <= 30; ++log2)
  {
    every_size.push_back(std::size_t{1} << log2);
    if ((log2 - 10) % (full ? 2 : 4) == 0)
    {
      sizes.push_back(std::size_t{1} << log2);
    }
  }
  if (by_key)
  {
    register_by_key(facts, bench_stream, full);
  }
  else if (full)
  {
    // Sum, Min and ArgMax at every power of two (the issue's targets name odd ones), the rest at even powers.
    register_type<std::int8_t, Op::sum, Op::min, Op::argmax>(every_size);
    register_type<std::uint8_t, Op::sum, Op::min, Op::argmax>(sizes);
    register_type<std::int16_t, Op::sum, Op::min, Op::argmax>(sizes);
    register_type<std::int32_t, Op::sum, Op::min, Op::argmax>(every_size);
    register_type<std::int64_t, Op::sum, Op::min, Op::argmax>(every_size);
    register_type<float, Op::sum, Op::min, Op::argmax>(every_size);
    register_type<double, Op::sum, Op::min, Op::argmax>(every_size);
    register_type<__half, Op::sum, Op::min, Op::argmax>(every_size);
    register_type<__nv_bfloat16, Op::sum, Op::min, Op::argmax>(every_size);
    register_type<std::int32_t, Op::custom>(sizes);
    register_type<float, Op::custom>(sizes);
    register_type<double, Op::custom>(sizes);
    // The order-preserving path against the same operator declared commutative, and gpu_to_gpu.
    register_type<std::int32_t, Op::custom_commutative, Op::sum_gpu_to_gpu>(sizes);
    register_type<float, Op::custom_commutative, Op::sum_gpu_to_gpu>(sizes);
    register_type<double, Op::custom_commutative, Op::sum_gpu_to_gpu>(sizes);
    // The fused families against cub's two calls: MinMax and ArgMinMax over every type, VarMean over the floats.
    register_type<std::int8_t, Op::minmax, Op::argminmax>(every_size);
    register_type<std::int32_t, Op::minmax, Op::argminmax>(every_size);
    register_type<std::int64_t, Op::minmax, Op::argminmax>(every_size);
    register_type<float, Op::minmax, Op::argminmax, Op::var_mean>(every_size);
    register_type<double, Op::minmax, Op::argminmax, Op::var_mean>(every_size);
    register_type<__half, Op::minmax, Op::argminmax, Op::var_mean>(every_size);
    register_type<__nv_bfloat16, Op::minmax, Op::argminmax, Op::var_mean>(every_size);
  }
  else
  {
    sizes.pop_back(); // 2^30 is in the full matrix only
    register_type<float, Op::sum, Op::argmax, Op::custom, Op::custom_commutative, Op::sum_gpu_to_gpu>(sizes);
    register_type<std::int32_t, Op::sum>(sizes);
    register_type<__half, Op::sum>(sizes);
    register_type<float, Op::argminmax, Op::var_mean>(sizes);
  }

  ProgressReporter progress;
  if (verbose)
  {
    benchmark::RunSpecifiedBenchmarks();
  }
  else
  {
    benchmark::RunSpecifiedBenchmarks(&progress);
  }
  benchmark::Shutdown();
  if (by_key)
  {
    print_by_key_table();
  }
  else
  {
    print_table();
  }
  return 0;
}
