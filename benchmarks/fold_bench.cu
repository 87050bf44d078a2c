// SPDX-License-Identifier: Apache-2.0
// fold-bench: fold::DeviceReduce and cub::DeviceReduce side by side, in one binary and one run, on the same
// buffers. Each case (operation, type, size, timing mode) times fold, cub and cub a second time, interleaved:
// the second cub timing against the first is the run-to-run spread, the yardstick for "faster" and "slower".
//
// Timing modes:
//   kernel  events around one call; the median over many calls
//   stream  events around K calls issued back to back on one stream (what an application issuing many
//           reductions sees, host work included); the median over iterations of the time per call
// Inputs of one case rotate among slices of a pool of at least 4x the L2 size (up to 64 slices), so that large
// inputs are read from memory, not from cache; inputs larger than that are read once per call anyway.
//
//   fold-bench                      a default subset (under a minute) and a compact table
//   fold-bench --full               the whole matrix: int8 int32 int64 float double half bfloat16 x
//                                   Sum Min ArgMax Custom x 2^10..2^30 (x4) x kernel/stream, and for
//                                   int32 float double: CustomC (Custom declared commutative) and SumG2G
//                                   (Sum with fold::gpu_to_gpu)
//   fold-bench --verbose            Google Benchmark's own console output as well
//   fold-bench --commit=<hash>      recorded in the JSON context (also from $FOLD_COMMIT)
//   fold-bench --sweep              the tuning sweep behind the sm_90 policy: fold's time with pass 1's grid at
//                                   k waves (k = 1..4; never more blocks than whole tiles), and single-pass at one
//                                   wave, next to cub's, kernel and stream timings
//   plus any Google Benchmark flag, e.g. --benchmark_out=results.json --benchmark_out_format=json
#include <fold/fold.cuh>

#include "bench_common.cuh"

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>

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
  default:
    return "SumG2G";
  }
}

enum class Mode
{
  kernel,
  stream
};

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

bench::DeviceFacts facts;

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
    BENCH_CHECK(cudaMalloc(&out_, 2 * sizeof(T)));
    BENCH_CHECK(cudaMalloc(&index_, 2 * sizeof(std::int64_t)));
    std::size_t fold_bytes = 0, cub_bytes = 0;
    fold::detail::dispatch_override = {fold::detail::ReducePath::two_pass, 0, 4}; // the most storage the sweep needs
    BENCH_CHECK(fold_call(nullptr, fold_bytes, 0, 0));
    fold::detail::dispatch_override = {};
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
    cudaFree(fold_temp_);
    cudaFree(cub_temp_);
  }

  cudaError_t fold(int slice, cudaStream_t stream) { return fold_call(fold_temp_, fold_bytes_, slice, stream); }
  cudaError_t cub(int slice, cudaStream_t stream) { return cub_call(cub_temp_, cub_bytes_, slice, stream); }
  int slices() const { return slices_; }

  //! Whether fold's and cub's results on slice 0 agree (exactly where both must be exact).
  bool agree()
  {
    if (fold(0, 0) != cudaSuccess || cub(0, 0) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
    {
      return false;
    }
    T values[2];
    std::int64_t indices[2];
    BENCH_CHECK(cudaMemcpy(values, out_, sizeof(values), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(indices, index_, sizeof(indices), cudaMemcpyDeviceToHost));
    constexpr bool is_float = fold::is_floating_v<T>;
    if constexpr (O == Op::argmax)
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

  cudaError_t fold_call(void* temp, std::size_t& bytes, int slice, cudaStream_t stream)
  {
    const T* in = input(slice);
    if constexpr (O == Op::sum)
      return fold::DeviceReduce::Sum(temp, bytes, in, out_, n_, stream);
    else if constexpr (O == Op::min)
      return fold::DeviceReduce::Min(temp, bytes, in, out_, n_, stream);
    else if constexpr (O == Op::argmax)
      return fold::DeviceReduce::ArgMax(temp, bytes, in, out_, index_, n_, stream);
    else if constexpr (O == Op::custom)
      return fold::DeviceReduce::Reduce(temp, bytes, in, out_, n_, CustomSum{}, T{}, stream);
    else if constexpr (O == Op::custom_commutative)
      return fold::DeviceReduce::Reduce(temp, bytes, in, out_, n_, fold::commutative(CustomSum{}), T{}, stream);
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
    else
      return cub::DeviceReduce::Reduce(temp, bytes, in, out_ + 1, n, CustomSum{}, T{}, stream);
  }

  std::size_t n_, stride_;
  int slices_;
  T* pool_                = nullptr;
  T* out_                 = nullptr;
  std::int64_t* index_    = nullptr;
  void* fold_temp_        = nullptr;
  void* cub_temp_         = nullptr;
  std::size_t fold_bytes_ = 0, cub_bytes_ = 0;
};

int kernel_iterations(std::size_t n)
{
  return n <= (1u << 20) ? 300 : n <= (1u << 24) ? 100 : n <= (1u << 28) ? 30 : 10;
}
int calls_per_stream_sample(std::size_t n)
{
  return n <= (1u << 20) ? 200 : n <= (1u << 24) ? 50 : n <= (1u << 28) ? 8 : 3;
}

template <typename T, Op O>
void run_case(benchmark::State& state, std::size_t n, Mode mode)
{
  const std::size_t bytes  = n * sizeof(T);
  const std::size_t target = 4 * facts.l2_bytes;
  const int slices =
      static_cast<int>(std::min<std::size_t>(64, std::max<std::size_t>(1, (target + bytes - 1) / bytes)));
  Case<T, O> c(n, slices);
  if (!c.agree())
  {
    state.SkipWithError("fold and cub disagree (or a call failed)");
    return;
  }
  bench::EventTimer timer;
  const int calls = mode == Mode::kernel ? 1 : calls_per_stream_sample(n);
  std::vector<double> fold_s, cub_s, cub_again_s;
  int slice          = 0;
  cudaError_t status = cudaSuccess;
  auto time          = [&](auto&& call)
  {
    return timer.seconds(
               [&]
               {
                 for (int k = 0; k < calls; ++k)
                 {
                   const cudaError_t s = call((slice + k) % c.slices());
                   status              = status == cudaSuccess ? s : status;
                 }
               }) /
           calls;
  };
  for (auto _ : state)
  {
    const double f = time([&](int s) { return c.fold(s, 0); });
    cub_s.push_back(time([&](int s) { return c.cub(s, 0); }));
    cub_again_s.push_back(time([&](int s) { return c.cub(s, 0); }));
    fold_s.push_back(f);
    state.SetIterationTime(f);
    slice = (slice + calls) % c.slices();
  }
  if (status != cudaSuccess)
  {
    state.SkipWithError(cudaGetErrorString(status));
    return;
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
                     mode == Mode::kernel ? "kernel" : "stream",
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
  const std::string name = std::string(op_name(O)) + "/" + bench::type_name<T>() + "/" + std::to_string(n) + "/" +
                           (mode == Mode::kernel ? "kernel" : "stream");
  auto* b = benchmark::RegisterBenchmark(name.c_str(),
                                         [n, mode](benchmark::State& state) { run_case<T, O>(state, n, mode); });
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
  b->Iterations(mode == Mode::kernel ? kernel_iterations(n) : 15);
}

template <typename T>
void register_type(const std::vector<Op>& ops, const std::vector<std::size_t>& sizes)
{
  for (Op op : ops)
  {
    for (std::size_t n : sizes)
    {
      for (Mode mode : {Mode::kernel, Mode::stream})
      {
        switch (op)
        {
        case Op::sum:
          register_case<T, Op::sum>(n, mode);
          break;
        case Op::min:
          register_case<T, Op::min>(n, mode);
          break;
        case Op::argmax:
          register_case<T, Op::argmax>(n, mode);
          break;
        case Op::custom:
          register_case<T, Op::custom>(n, mode);
          break;
        case Op::custom_commutative:
          register_case<T, Op::custom_commutative>(n, mode);
          break;
        case Op::sum_gpu_to_gpu:
          register_case<T, Op::sum_gpu_to_gpu>(n, mode);
          break;
        }
      }
    }
  }
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

//! The median time per call of `call(slice)` (kernel or stream timing), rotating over `slices` inputs.
template <typename CallT>
double median_seconds(CallT&& call, int slices, std::size_t n, Mode mode)
{
  bench::EventTimer timer;
  const int calls = mode == Mode::kernel ? 1 : calls_per_stream_sample(n);
  const int reps  = mode == Mode::kernel ? kernel_iterations(n) : 15;
  std::vector<double> samples;
  int slice = 0;
  for (int r = 0; r < reps; ++r)
  {
    samples.push_back(timer.seconds(
                          [&]
                          {
                            for (int k = 0; k < calls; ++k)
                              BENCH_CHECK(call((slice + k) % slices));
                          }) /
                      calls);
    slice = (slice + calls) % slices;
  }
  return bench::median(samples);
}

//! Fold's median time per call with pass 1 at `waves` waves (and `path`), through the dispatch's test hook.
template <typename T, Op O>
double fold_seconds(Case<T, O>& c,
                    std::size_t n,
                    Mode mode,
                    int waves,
                    fold::detail::ReducePath path = fold::detail::ReducePath::automatic)
{
  fold::detail::dispatch_override = {path, 0, waves};
  const double t                  = median_seconds([&](int slice) { return c.fold(slice, 0); }, c.slices(), n, mode);
  fold::detail::dispatch_override = {};
  return t;
}

template <typename T, Op O>
double cub_seconds(Case<T, O>& c, std::size_t n, Mode mode)
{
  return median_seconds([&](int slice) { return c.cub(slice, 0); }, c.slices(), n, mode);
}

template <typename T, Op O>
void sweep_one()
{
  const int waves[] = {1, 2, 3, 4};
  for (int log2 : {14, 17, 19, 20, 21, 22, 23, 24, 26, 28, 30})
  {
    const std::size_t n = std::size_t{1} << log2;
    if (n * sizeof(T) > facts.memory / 3)
      continue;
    const std::size_t bytes = n * sizeof(T);
    const int slices =
        static_cast<int>(std::min<std::size_t>(64, std::max<std::size_t>(1, (4 * facts.l2_bytes + bytes - 1) / bytes)));
    Case<T, O> c(n, slices);
    for (Mode mode : {Mode::kernel, Mode::stream})
    {
      std::printf("%-7s %-9s 2^%-3d %-7s cub %9.2f us |",
                  op_name(O),
                  bench::type_name<T>(),
                  log2,
                  mode == Mode::kernel ? "kernel" : "stream",
                  cub_seconds(c, n, mode) * 1e6);
      for (int w : waves)
      {
        std::printf(" %dx %9.2f", w, fold_seconds(c, n, mode, w) * 1e6);
      }
      std::printf(" | single-pass 1x %9.2f", fold_seconds(c, n, mode, 1, fold::detail::ReducePath::single_pass) * 1e6);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
}

void sweep()
{
  std::printf("grid sweep: fold's time (us) with pass 1 at k waves (occupancy x %d SMs x k, at most one block per "
              "whole tile), and forced single-pass at one wave, next to cub's\n",
              facts.sms);
  sweep_one<float, Op::sum>();
  sweep_one<std::int8_t, Op::sum>();
  sweep_one<__half, Op::sum>();
  sweep_one<double, Op::sum>();
  sweep_one<float, Op::argmax>();
  sweep_one<std::int8_t, Op::argmax>();
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
  bool full = false, verbose = false, run_sweep = false;
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
    else if (std::strncmp(argv[i], "--commit=", 9) == 0)
      commit = argv[i] + 9;
    else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
    {
      std::printf("usage: fold-bench [--full | --sweep] [--verbose] [--commit=<hash>] [Google Benchmark flags]\n");
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
  benchmark::AddCustomContext("device", facts.name);
  benchmark::AddCustomContext("sms", std::to_string(facts.sms));
  benchmark::AddCustomContext("peak_GBps", std::to_string(facts.peak_gbps));
  benchmark::AddCustomContext("ceiling_GBps", std::to_string(facts.ceiling_gbps));
  benchmark::AddCustomContext("commit", commit);
  benchmark::AddCustomContext("matrix", full ? "full" : "default");
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

  std::vector<std::size_t> sizes;
  for (int log2 = 10; log2 <= 30; log2 += full ? 2 : 4)
  {
    sizes.push_back(std::size_t{1} << log2);
  }
  if (full)
  {
    const std::vector<Op> ops{Op::sum, Op::min, Op::argmax, Op::custom};
    register_type<std::int8_t>(ops, sizes);
    register_type<std::int32_t>(ops, sizes);
    register_type<std::int64_t>(ops, sizes);
    register_type<float>(ops, sizes);
    register_type<double>(ops, sizes);
    register_type<__half>(ops, sizes);
    register_type<__nv_bfloat16>(ops, sizes);
    // The order-preserving path against the same operator declared commutative, and gpu_to_gpu.
    const std::vector<Op> modes{Op::custom_commutative, Op::sum_gpu_to_gpu};
    register_type<std::int32_t>(modes, sizes);
    register_type<float>(modes, sizes);
    register_type<double>(modes, sizes);
  }
  else
  {
    sizes.pop_back(); // 2^30 is in the full matrix only
    register_type<float>({Op::sum, Op::argmax, Op::custom, Op::custom_commutative, Op::sum_gpu_to_gpu}, sizes);
    register_type<std::int32_t>({Op::sum}, sizes);
    register_type<__half>({Op::sum}, sizes);
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
  print_table();
  return 0;
}
