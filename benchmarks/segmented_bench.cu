// SPDX-License-Identifier: Apache-2.0
// fold-segmented-bench: fold::DeviceSegmentedReduce against cub::DeviceSegmentedReduce, 256 MB of items per case
// (2^26 floats or int32, 2^27 halves), for the segment length distributions of issue 19:
// - Sum over float for every distribution: fixed lengths (every power of two from 1 to 2^24 and odd ones),
//   through offsets and through fold's fixed-size overload (`/sized`); uniform ranges; log-normal; power-law;
//   bimodal; one huge segment among millions of tiny ones; many empty segments; and unsorted and overlapping
//   segments (begin and end offsets given apart): two distributions' segments in a random order, and segments
//   that each begin halfway through the one before;
// - Sum over int32 and half, Min and ArgMax over float, for a representative subset of those;
// - 64-bit offsets (`/off64`) for a few cases;
// - the reference: each case's bytes of float, int32 and half as one array, through fold::DeviceReduce::Sum beside
//   cub::DeviceReduce::Sum (`whole/Sum/<type>`), what the segmented cases read at most in one call;
// and fold::DeviceReduceAxes over the shapes of issues 6 and 19 (Sum over float; over half and int32 for five of
// them, `axes/<shape>/<axes>/<type>`; Max over float for seven and over half for two, `.../[half/]max`), against
// cub's segmented sum or max where it applies (the last axis). fold and cub in
// one run on the same buffers, timed with CUDA events (one call between the events, the median of 9 calls after a
// warm-up, 3 where a call takes over 5 ms; cub before and after fold, the two timings' ratio its run-to-run spread,
// `cub_spread`); % of the datasheet peak counts the bytes that must move: the items, the offsets and the results
// (for unsorted and overlapping segments, the items as the 32-byte sectors each segment reads: every segment's own).
// Random lengths come from fixed seeds, so every run measures the same segments. Results as Google Benchmark JSON
// (benchmarks/report.py segmented turns them into benchmarks/results/segmented-bench.*).
//
// With FOLD_LENGTHS_DIR set, the lengths of every random distribution are also written there, one file
// `<distribution>-<items>.i32` (raw little-endian int32 lengths, in segment order) per distribution and item
// count, for benchmarks/torch_segmented.py to time torch on the very same segments.
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "bench_common.cuh"

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <type_traits>
#include <vector>

namespace
{
bench::DeviceFacts facts;

struct Row
{
  std::string name;
  double fold_us, cub_us, bytes, cub_bytes;
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

//! The bytes of items of every segmented case: 2^26 floats or int32, 2^27 halves; `FOLD_CASE_MIB` sets another
//! size in MiB (the committed results use the default; at 1024 a call's fixed costs weigh a quarter as much).
std::size_t case_bytes = std::size_t{256} << 20;

//! The longest random segment (a fixed length may be anything).
constexpr double max_length = 1 << 24;

// ---- segment lengths ------------------------------------------------------------------------------------------

//! Seeded uniform draws (splitmix64 of a counter): the same lengths on every run.
class Draws
{
public:
  explicit Draws(std::uint64_t seed)
      : state_(seed)
  {
  }
  //! Uniform in [0, 1).
  double uniform() { return static_cast<double>(bench::mix(++state_) >> 11) * 0x1.0p-53; }
  //! Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi)
  {
    return lo + static_cast<std::int64_t>(bench::mix(++state_) % static_cast<std::uint64_t>(hi - lo + 1));
  }

private:
  std::uint64_t state_;
};

enum class Shape
{
  fixed,     //!< every segment `a` items (as many as fit)
  uniform,   //!< uniform in [a, b]
  lognormal, //!< round(a * exp(b * z)), z standard normal: median a, log-standard deviation b; at least 1
  powerlaw,  //!< floor(u^(-1/a)), u uniform in (0, 1]: P(L >= x) = x^-a, from 1 item
  bimodal,   //!< b with probability c, else a
  one_huge,  //!< half the items in one segment (in the middle), the other half in segments uniform in [a, b]
  empty,     //!< empty with probability c, else uniform in [a, b]
  shuffled,  //!< uniform in [a, b], the segments listed in a random order (begin and end offsets apart)
  overlap,   //!< uniform in [a, b], each beginning halfway through the one before (begin and end offsets apart)
};

struct Distribution
{
  std::string name;
  Shape shape;
  double a = 0, b = 0, c = 0;
  std::uint64_t seed = 0;
};

Distribution fixed(std::int64_t length)
{
  return {"fixed-" + std::to_string(length), Shape::fixed, static_cast<double>(length)};
}

//! The random distributions; each has its own seed. powerlaw-0.7 is the power law of the earlier runs (seed 42).
const std::vector<Distribution> random_distributions = {
    {"uniform-1-16", Shape::uniform, 1, 16, 0, 101},
    {"uniform-1-64", Shape::uniform, 1, 64, 0, 102},
    {"uniform-1-512", Shape::uniform, 1, 512, 0, 103},
    {"uniform-256-4096", Shape::uniform, 256, 4096, 0, 104},
    {"lognormal-32-1", Shape::lognormal, 32, 1, 0, 105},
    {"lognormal-256-2", Shape::lognormal, 256, 2, 0, 106},
    {"powerlaw-0.7", Shape::powerlaw, 0.7, 0, 0, 42},
    {"powerlaw-1.2", Shape::powerlaw, 1.2, 0, 0, 107},
    {"bimodal-8-4096", Shape::bimodal, 8, 4096, 0.1, 108},
    {"onehuge-1-8", Shape::one_huge, 1, 8, 0, 109},
    {"empty50-1-64", Shape::empty, 1, 64, 0.5, 110},
    {"empty90-1-64", Shape::empty, 1, 64, 0.9, 111},
    {"shuffled-256-4096", Shape::shuffled, 256, 4096, 0, 104},
    {"shuffled-1-64", Shape::shuffled, 1, 64, 0, 102},
    {"overlap-256-4096", Shape::overlap, 256, 4096, 0, 112},
    {"overlap-1-64", Shape::overlap, 1, 64, 0, 113},
};

const Distribution& distribution(const std::string& name)
{
  for (const Distribution& d : random_distributions)
  {
    if (d.name == name)
    {
      return d;
    }
  }
  std::fprintf(stderr, "benchmark: no distribution %s\n", name.c_str());
  std::exit(1);
}

//! How far past an overlapping segment of `length` items the next one begins: halfway.
std::int64_t overlap_step(std::int64_t length)
{
  return (length + 1) / 2;
}

//! The lengths of `d`'s segments, back to back, covering `items` items (a fixed length: as many whole segments as
//! fit; overlapping ones each `overlap_step` past the one before, the last ending by `items`). The last random
//! segment is cut to what is left.
std::vector<std::int64_t> make_lengths(const Distribution& d, std::int64_t items)
{
  std::vector<std::int64_t> lengths;
  if (d.shape == Shape::fixed)
  {
    const auto length = static_cast<std::int64_t>(d.a);
    lengths.assign(static_cast<std::size_t>(items / length), length);
    return lengths;
  }
  Draws draws{d.seed};
  const auto a            = static_cast<std::int64_t>(d.a);
  const auto b            = static_cast<std::int64_t>(d.b);
  const std::int64_t fill = d.shape == Shape::one_huge ? items / 2 : items;
  std::int64_t total      = 0;
  constexpr double two_pi = 6.283185307179586;
  auto clamped            = [](double x) { return static_cast<std::int64_t>(std::min(std::max(x, 1.0), max_length)); };
  while (total < fill)
  {
    std::int64_t length = 0;
    switch (d.shape)
    {
    case Shape::lognormal:
    {
      const double u1 = 1.0 - draws.uniform(), u2 = draws.uniform(); // Box-Muller, u1 in (0, 1]
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
      length         = clamped(std::nearbyint(d.a * std::exp(d.b * z)));
      break;
    }
    case Shape::powerlaw:
      length = clamped(std::floor(std::pow(1.0 - draws.uniform(), -1.0 / d.a)));
      break;
    case Shape::bimodal:
      length = draws.uniform() < d.c ? b : a;
      break;
    case Shape::empty:
      length = draws.uniform() < d.c ? 0 : draws.between(a, b);
      break;
    default: // uniform, one_huge, shuffled
      length = draws.between(a, b);
      break;
    }
    length = std::min(length, fill - total);
    lengths.push_back(length);
    total += d.shape == Shape::overlap ? overlap_step(length) : length;
  }
  if (d.shape == Shape::one_huge)
  {
    lengths.insert(lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2), items - fill);
  }
  return lengths;
}

//! Writes `lengths` to `$FOLD_LENGTHS_DIR/<name>-<items>.i32` once, when the variable is set.
void save_lengths(const Distribution& d, std::int64_t items, const std::vector<std::int64_t>& lengths)
{
  static std::set<std::string> saved;
  const char* dir = std::getenv("FOLD_LENGTHS_DIR");
  if (dir == nullptr || d.shape == Shape::fixed || d.shape == Shape::shuffled || d.shape == Shape::overlap)
  {
    return;
  }
  const std::string path = std::string(dir) + "/" + d.name + "-" + std::to_string(items) + ".i32";
  if (!saved.insert(path).second)
  {
    return;
  }
  const std::vector<std::int32_t> narrow(lengths.begin(), lengths.end());
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr || std::fwrite(narrow.data(), sizeof(std::int32_t), narrow.size(), file) != narrow.size())
  {
    std::fprintf(stderr, "benchmark: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(file);
}

// ---- timing and recording -------------------------------------------------------------------------------------

//! Median seconds of the calls of `call` after one warm-up: 9 calls, or 3 when the warm-up took over 5 ms.
template <typename CallT>
double median_seconds(CallT&& call)
{
  bench::EventTimer timer;
  cudaError_t status  = cudaSuccess;
  const double warmup = timer.seconds([&] { status = call(); });
  BENCH_CHECK(status);
  const int iterations = warmup > 5e-3 ? 3 : 9;
  std::vector<double> samples;
  for (int i = 0; i < iterations; ++i)
  {
    samples.push_back(timer.seconds([&] { status = call(); }));
    BENCH_CHECK(status);
  }
  return bench::median(samples);
}

//! Seconds per call of `call` made 10 times back to back between two events, the median of 3 such runs: the
//! host's launches overlap the device's work, as in a program's loop, where `median_seconds` has a single call's
//! launches on its critical path.
template <typename CallT>
double stream_seconds(CallT&& call)
{
  bench::EventTimer timer;
  cudaError_t status  = cudaSuccess;
  constexpr int calls = 10;
  std::vector<double> samples;
  for (int i = 0; i < 3; ++i)
  {
    samples.push_back(timer.seconds(
                          [&]
                          {
                            for (int c = 0; c < calls && status == cudaSuccess; ++c)
                            {
                              status = call();
                            }
                          }) /
                      calls);
    BENCH_CHECK(status);
  }
  return bench::median(samples);
}

//! Records the stream-mode times (`stream_seconds`) of fold and, where there is one, cub.
void record_stream(benchmark::State& state, double fold_s, double cub_s)
{
  state.counters["fold_stream_us"] = fold_s * 1e6;
  state.counters["cub_stream_us"]  = cub_s * 1e6;
}

//! One call of fold and of cub timed (`median_seconds`), cub before and after fold: the second timing over the
//! first is cub's own run-to-run spread (`cub_spread`), the noise floor of the fold/cub ratio; then both in stream
//! mode. Returns fold's and cub's seconds.
template <typename FoldCallT, typename CubCallT>
std::pair<double, double> time_beside_cub(benchmark::State& state, FoldCallT&& run_fold, CubCallT&& run_cub)
{
  double fold_s = 0, cub_s = 0, cub_again_s = 0;
  for (auto _ : state)
  {
    cub_s       = median_seconds(run_cub);
    fold_s      = median_seconds(run_fold);
    cub_again_s = median_seconds(run_cub);
    state.SetIterationTime(fold_s);
  }
  state.counters["cub_spread"] = cub_again_s / cub_s;
  record_stream(state, stream_seconds(run_fold), stream_seconds(run_cub));
  return {fold_s, cub_s};
}

//! The counters every case reports (report.py reads them): times, the fold/cub ratio, bytes that must move, and
//! bandwidth and % of the datasheet peak for each (cub's bytes differ from fold's through the fixed-size overload,
//! which reads no offsets).
void record(
    benchmark::State& state, const std::string& name, double fold_s, double cub_s, double bytes, double cub_bytes)
{
  state.counters["fold_us"]        = fold_s * 1e6;
  state.counters["cub_us"]         = cub_s * 1e6;
  state.counters["fold_over_cub"]  = cub_s > 0 ? fold_s / cub_s : 0;
  state.counters["bytes"]          = bytes;
  state.counters["cub_bytes"]      = cub_bytes;
  state.counters["fold_GBps"]      = bytes / fold_s / 1e9;
  state.counters["cub_GBps"]       = cub_s > 0 ? cub_bytes / cub_s / 1e9 : 0;
  state.counters["fold_peak_frac"] = bytes / fold_s / 1e9 / facts.peak_gbps;
  state.counters["cub_peak_frac"]  = cub_s > 0 ? cub_bytes / cub_s / 1e9 / facts.peak_gbps : 0;
  rows.push_back({name, fold_s * 1e6, cub_s * 1e6, bytes, cub_bytes});
}

// ---- segmented cases ------------------------------------------------------------------------------------------

enum class Op
{
  Sum,
  Min,
  Max, //!< the axis cases only
  ArgMax
};

const char* op_name(Op op)
{
  return op == Op::Sum ? "Sum" : op == Op::Min ? "Min" : op == Op::Max ? "Max" : "ArgMax";
}

template <Op O, typename T>
using FoldOut = std::conditional_t<O == Op::ArgMax, fold::KeyValuePair<int, T>, T>;
template <Op O, typename T>
using CubOut = std::conditional_t<O == Op::ArgMax, cub::KeyValuePair<int, T>, T>;

//! fold's `O`, through offsets (`begins, ends`) or the fixed-size overload (`segment_size`): the arguments after the
//! segment count are passed on as they are.
template <Op O, typename T, typename... SegmentsT>
cudaError_t
fold_segmented(void* temp, std::size_t& bytes, const T* in, FoldOut<O, T>* out, std::int64_t n, SegmentsT... segments)
{
  if constexpr (O == Op::Sum)
  {
    return fold::DeviceSegmentedReduce::Sum(temp, bytes, in, out, n, segments...);
  }
  else if constexpr (O == Op::Min)
  {
    return fold::DeviceSegmentedReduce::Min(temp, bytes, in, out, n, segments...);
  }
  else
  {
    static_assert(O == Op::ArgMax, "fold_segmented: a new Op needs its call here");
    return fold::DeviceSegmentedReduce::ArgMax(temp, bytes, in, out, n, segments...);
  }
}

template <Op O, typename T, typename BeginT, typename EndT>
cudaError_t
cub_segmented(void* temp, std::size_t& bytes, const T* in, CubOut<O, T>* out, std::int64_t n, BeginT begins, EndT ends)
{
  if constexpr (O == Op::Sum)
  {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out, n, begins, ends);
  }
  else if constexpr (O == Op::Min)
  {
    return cub::DeviceSegmentedReduce::Min(temp, bytes, in, out, n, begins, ends);
  }
  else if constexpr (O == Op::Max)
  {
    return cub::DeviceSegmentedReduce::Max(temp, bytes, in, out, n, begins, ends);
  }
  else
  {
    return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, in, out, n, begins, ends);
  }
}

//! Whether fold's and cub's results for a segment of `length` items agree: float sums within a loose bound (the
//! trees differ; cub sums halves in half precision), everything else exactly. For an empty segment only fold's
//! own result is checked (+inf for Min, index -1 and -inf for ArgMax; cub writes max() and (1, lowest())).
template <Op O, typename T>
bool agree(const FoldOut<O, T>& mine, const CubOut<O, T>& theirs, std::int64_t length)
{
  constexpr float inf = std::numeric_limits<float>::infinity();
  if constexpr (O == Op::ArgMax)
  {
    if (length == 0)
    {
      return mine.key == -1 && static_cast<float>(mine.value) == -inf;
    }
    return mine.key == theirs.key && static_cast<float>(mine.value) == static_cast<float>(theirs.value);
  }
  else if constexpr (O == Op::Min || O == Op::Max)
  {
    return length == 0 ? static_cast<float>(mine) == (O == Op::Min ? inf : -inf)
                       : static_cast<float>(mine) == static_cast<float>(theirs);
  }
  else if constexpr (std::is_integral_v<T>)
  {
    return mine == theirs;
  }
  else
  {
    const double difference = std::fabs(static_cast<double>(static_cast<float>(mine)) - static_cast<float>(theirs));
    return difference <= (std::is_same_v<T, float> ? 1e-5 * (length + 16) : 0.05 * length + 1);
  }
}

//! One segmented case: `O` over `T` items, `OffsetT` offsets, segments of `d`; `Sized`: fold through its
//! fixed-size overload (no offsets), cub through the offsets.
template <typename T, typename OffsetT, Op O, bool Sized = false>
void segmented_case(benchmark::State& state, const Distribution& d, const std::string& name)
{
  const auto capacity                     = static_cast<std::int64_t>(case_bytes / sizeof(T));
  const std::vector<std::int64_t> lengths = make_lengths(d, capacity);
  save_lengths(d, capacity, lengths);
  const auto segments = static_cast<std::int64_t>(lengths.size());
  // Back-to-back offsets; or the segments' begins and ends apart: shuffled, the same segments listed in a random
  // order; overlapping, each beginning `overlap_step` past the one before.
  std::vector<OffsetT> offsets(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i)
  {
    offsets[i + 1] = static_cast<OffsetT>(offsets[i] + lengths[i]);
  }
  std::int64_t items = static_cast<std::int64_t>(offsets.back());
  const bool apart   = d.shape == Shape::shuffled || d.shape == Shape::overlap;
  std::vector<OffsetT> begins, ends;
  std::vector<std::int64_t> shuffled_lengths;
  if (d.shape == Shape::shuffled)
  {
    std::vector<std::int64_t> order(lengths.size());
    for (std::size_t i = 0; i < order.size(); ++i)
    {
      order[i] = static_cast<std::int64_t>(i);
    }
    Draws draws{d.seed + 1000};
    for (std::size_t i = order.size() - 1; i > 0; --i)
    {
      std::swap(order[i], order[static_cast<std::size_t>(draws.between(0, static_cast<std::int64_t>(i)))]);
    }
    for (std::size_t i = 0; i < order.size(); ++i)
    {
      begins.push_back(offsets[order[i]]);
      ends.push_back(offsets[order[i] + 1]);
      shuffled_lengths.push_back(lengths[order[i]]);
    }
  }
  else if (d.shape == Shape::overlap)
  {
    std::int64_t begin = 0;
    items              = 0; // the segments' items, each counted once per segment that holds it
    for (std::int64_t length : lengths)
    {
      begins.push_back(static_cast<OffsetT>(begin));
      ends.push_back(static_cast<OffsetT>(begin + length));
      items += length;
      begin += overlap_step(length);
    }
  }
  // Each output's segment length.
  const std::vector<std::int64_t>& listed = d.shape == Shape::shuffled ? shuffled_lengths : lengths;

  Buffer<T> in(static_cast<std::size_t>(capacity));
  Buffer<FoldOut<O, T>> out(segments);
  Buffer<CubOut<O, T>> cub_out(segments);
  Buffer<OffsetT> d_offsets(apart ? 2 * lengths.size() : offsets.size());
  bench::fill(in.data, static_cast<std::size_t>(capacity), 7);
  if (apart)
  {
    BENCH_CHECK(cudaMemcpy(d_offsets.data, begins.data(), segments * sizeof(OffsetT), cudaMemcpyHostToDevice));
    BENCH_CHECK(cudaMemcpy(d_offsets.data + segments, ends.data(), segments * sizeof(OffsetT), cudaMemcpyHostToDevice));
  }
  else
  {
    BENCH_CHECK(cudaMemcpy(d_offsets.data, offsets.data(), offsets.size() * sizeof(OffsetT), cudaMemcpyHostToDevice));
  }
  const OffsetT* d_begins = d_offsets.data;
  const OffsetT* d_ends   = d_offsets.data + (apart ? segments : 1);
  const auto length       = static_cast<std::int64_t>(d.a); // the fixed length, for the fixed-size overload

  std::size_t fold_bytes = 0, cub_bytes = 0;
  auto fold_call = [&](void* temp, std::size_t& bytes)
  {
    if constexpr (Sized)
    {
      return fold_segmented<O>(temp, bytes, in.data, out.data, segments, length);
    }
    else
    {
      return fold_segmented<O>(temp, bytes, in.data, out.data, segments, d_begins, d_ends);
    }
  };
  auto cub_call = [&](void* temp, std::size_t& bytes)
  { return cub_segmented<O>(temp, bytes, in.data, cub_out.data, segments, d_begins, d_ends); };
  BENCH_CHECK(fold_call(nullptr, fold_bytes));
  BENCH_CHECK(cub_call(nullptr, cub_bytes));
  Buffer<char> fold_temp(fold_bytes), cub_temp(cub_bytes);
  auto run_fold = [&] { return fold_call(fold_temp.data, fold_bytes); };
  auto run_cub  = [&] { return cub_call(cub_temp.data, cub_bytes); };

  // Agreement, segment by segment, before timing.
  BENCH_CHECK(cudaMemset(out.data, 0xA5, segments * sizeof(FoldOut<O, T>)));
  BENCH_CHECK(run_fold());
  BENCH_CHECK(run_cub());
  BENCH_CHECK(cudaDeviceSynchronize());
  std::vector<FoldOut<O, T>> mine(static_cast<std::size_t>(segments));
  std::vector<CubOut<O, T>> theirs(static_cast<std::size_t>(segments));
  BENCH_CHECK(cudaMemcpy(mine.data(), out.data, segments * sizeof(FoldOut<O, T>), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaMemcpy(theirs.data(), cub_out.data, segments * sizeof(CubOut<O, T>), cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < segments; ++i)
  {
    if (!agree<O, T>(mine[i], theirs[i], listed[i]))
    {
      std::fprintf(stderr, "%s: fold and cub disagree at segment %lld\n", name.c_str(), static_cast<long long>(i));
      state.SkipWithError("fold and cub disagree");
      return;
    }
  }

  const auto [fold_s, cub_s] = time_beside_cub(state, run_fold, run_cub);
  // Bytes that must move: the items, the offsets read (none through the fixed-size overload) and the results. With
  // begins and ends apart, a segment's items are the 32-byte sectors it reads, whoever else reads them too (the
  // buffer is 256-byte aligned).
  const double offsets_read = apart ? 2.0 * segments : segments + 1.0;
  double item_bytes         = static_cast<double>(items) * sizeof(T);
  if (apart)
  {
    item_bytes = 0;
    for (std::int64_t i = 0; i < segments; ++i)
    {
      const auto begin = static_cast<std::int64_t>(begins[i]) * static_cast<std::int64_t>(sizeof(T));
      const auto end   = static_cast<std::int64_t>(ends[i]) * static_cast<std::int64_t>(sizeof(T));
      item_bytes += end > begin ? static_cast<double>(32 * ((end + 31) / 32 - begin / 32)) : 0.0;
    }
  }
  const double out_bytes           = static_cast<double>(segments) * sizeof(FoldOut<O, T>);
  const double cub_moved           = item_bytes + offsets_read * sizeof(OffsetT) + out_bytes;
  const double fold_moved          = Sized ? item_bytes + out_bytes : cub_moved;
  state.counters["segment_length"] = d.shape == Shape::fixed ? d.a : 0;
  state.counters["segments"]       = static_cast<double>(segments);
  state.counters["items"]          = static_cast<double>(items);
  state.counters["mean_length"]    = segments > 0 ? static_cast<double>(items) / segments : 0;
  state.counters["offset_bytes"]   = Sized ? 0 : sizeof(OffsetT);
  state.counters["sector_bytes"]   = apart ? 1 : 0; // the items counted as sectors
  record(state, name, fold_s, cub_s, fold_moved, cub_moved);
}

template <typename T, typename OffsetT, Op O, bool Sized = false>
void add_segmented(const Distribution& d, const std::string& suffix = "")
{
  const std::string name = std::string("segmented/") + op_name(O) + "/" + bench::type_name<T>() + "/" + d.name + suffix;
  benchmark::RegisterBenchmark(name.c_str(),
                               [d, name](benchmark::State& s) { segmented_case<T, OffsetT, O, Sized>(s, d, name); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

// ---- the whole array: the reference ---------------------------------------------------------------------------

//! The case's items as one segment: `fold::DeviceReduce::Sum` beside `cub::DeviceReduce::Sum` over the same
//! `case_bytes` of `T`, one call. What any split of those items into segments reads at most, as fold's and cub's
//! whole-array reductions read them; `report.py segmented` sets the segmented figures beside it. Both results are
//! checked against a host sum in double (cub's only where it accumulates in the item's type exactly: int32; float
//! within the bound; half not, cub summing 2^27 halves in half).
template <typename T>
void whole_case(benchmark::State& state, const std::string& name)
{
  const auto items = static_cast<std::int64_t>(case_bytes / sizeof(T));
  Buffer<T> in(static_cast<std::size_t>(items));
  Buffer<T> out(1), cub_out(1);
  bench::fill(in.data, static_cast<std::size_t>(items), 11);
  std::size_t fold_bytes = 0, cub_bytes = 0;
  BENCH_CHECK(fold::DeviceReduce::Sum(nullptr, fold_bytes, in.data, out.data, items));
  BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, in.data, cub_out.data, items));
  Buffer<char> fold_temp(fold_bytes), cub_temp(cub_bytes);
  auto run_fold = [&] { return fold::DeviceReduce::Sum(fold_temp.data, fold_bytes, in.data, out.data, items); };
  auto run_cub  = [&] { return cub::DeviceReduce::Sum(cub_temp.data, cub_bytes, in.data, cub_out.data, items); };

  BENCH_CHECK(cudaMemset(out.data, 0xA5, sizeof(T)));
  BENCH_CHECK(cudaMemset(cub_out.data, 0xA5, sizeof(T)));
  BENCH_CHECK(run_fold());
  BENCH_CHECK(run_cub());
  std::vector<T> host(static_cast<std::size_t>(items));
  T mine{}, theirs{};
  BENCH_CHECK(cudaMemcpy(host.data(), in.data, items * sizeof(T), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaMemcpy(&mine, out.data, sizeof(T), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaMemcpy(&theirs, cub_out.data, sizeof(T), cudaMemcpyDeviceToHost));
  bool agree = true;
  if constexpr (std::is_integral_v<T>)
  {
    std::uint32_t wrapped = 0; // int32 sums wrap alike in any order
    for (const T x : host)
    {
      wrapped += static_cast<std::uint32_t>(x);
    }
    agree = static_cast<std::uint32_t>(mine) == wrapped && static_cast<std::uint32_t>(theirs) == wrapped;
  }
  else
  {
    double sum = 0, magnitude = 0;
    for (const T x : host)
    {
      sum += static_cast<double>(static_cast<float>(x));
      magnitude += std::fabs(static_cast<double>(static_cast<float>(x)));
    }
    // The trees differ from the host's sum by rounding: far less than 2^-20 of the items' magnitudes in float.
    const double bound = 0x1.0p-20 * magnitude + 1;
    agree              = std::fabs(static_cast<double>(static_cast<float>(mine)) - sum) <= bound &&
            (!std::is_same_v<T, float> || std::fabs(static_cast<double>(static_cast<float>(theirs)) - sum) <= bound);
  }
  if (!agree)
  {
    std::fprintf(stderr, "%s: a whole-array sum disagrees with the host's\n", name.c_str());
    state.SkipWithError("a whole-array sum disagrees with the host's");
    return;
  }

  const auto [fold_s, cub_s] = time_beside_cub(state, run_fold, run_cub);
  const double moved             = static_cast<double>(items + 1) * sizeof(T);
  state.counters["segments"]     = 1;
  state.counters["items"]        = static_cast<double>(items);
  state.counters["mean_length"]  = static_cast<double>(items);
  state.counters["offset_bytes"] = 0;
  record(state, name, fold_s, cub_s, moved, moved);
}

template <typename T>
void add_whole()
{
  const std::string name = std::string("whole/Sum/") + bench::type_name<T>();
  benchmark::RegisterBenchmark(name.c_str(), [name](benchmark::State& s) { whole_case<T>(s, name); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

// ---- axis cases -----------------------------------------------------------------------------------------------

//! Offsets `i * stride` for cub's segmented sum over rows.
struct RowOffset
{
  int stride;
  __host__ __device__ int operator()(int i) const { return i * stride; }
};

//! `[d0, ..., dk]` of `T` reduced over `axes` by `O` (Sum or Max): fold, and cub's segmented reduction where the
//! reduced axes are the last ones.
template <typename T, Op O = Op::Sum>
void axes_case(benchmark::State& state, std::vector<std::int64_t> shape, std::vector<int> axes, std::string name)
{
  static_assert(O == Op::Sum || O == Op::Max, "axes_case: Sum or Max");
  const bench::AxesCounts counts = bench::axes_counts(shape, axes);
  const std::size_t items        = counts.items;
  const std::size_t outputs      = counts.outputs;
  const unsigned mask            = counts.mask;
  Buffer<T> in(items), out(outputs), cub_out(outputs);
  bench::fill(in.data, items, 11);
  const fold::Extents extents(shape.data(), static_cast<int>(shape.size()));
  const fold::Axes reduced(axes.data(), static_cast<int>(axes.size()));
  auto fold_axes = [&](void* temp, std::size_t& bytes)
  {
    if constexpr (O == Op::Sum)
    {
      return fold::DeviceReduceAxes::Sum(temp, bytes, in.data, out.data, extents, reduced);
    }
    else
    {
      return fold::DeviceReduceAxes::Max(temp, bytes, in.data, out.data, extents, reduced);
    }
  };
  std::size_t fold_bytes = 0;
  BENCH_CHECK(fold_axes(nullptr, fold_bytes));
  Buffer<char> fold_temp(fold_bytes);
  auto fold_call = [&] { return fold_axes(fold_temp.data, fold_bytes); };
  // cub applies when the reduced axes are the trailing ones: segments of `items / outputs` items.
  bool trailing = true;
  for (std::size_t d = 0; d < shape.size(); ++d)
  {
    trailing = trailing && (((mask >> d) & 1u) == 0 || (d >= shape.size() - axes.size()));
  }
  const int length = static_cast<int>(items / outputs);
  auto offsets     = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), RowOffset{length});
  auto cub_axes    = [&](void* temp, std::size_t& bytes)
  {
    return cub_segmented<O, T>(
        temp, bytes, in.data, cub_out.data, static_cast<std::int64_t>(outputs), offsets, offsets + 1);
  };
  std::size_t cub_bytes = 0;
  if (trailing)
  {
    BENCH_CHECK(cub_axes(nullptr, cub_bytes));
  }
  Buffer<char> cub_temp(cub_bytes);
  auto cub_call = [&] { return cub_axes(cub_temp.data, cub_bytes); };
  BENCH_CHECK(fold_call());
  if (trailing)
  {
    BENCH_CHECK(cub_call());
    BENCH_CHECK(cudaDeviceSynchronize());
    std::vector<T> mine(outputs), theirs(outputs);
    BENCH_CHECK(cudaMemcpy(mine.data(), out.data, outputs * sizeof(T), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(theirs.data(), cub_out.data, outputs * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < outputs; ++i)
    {
      if (!agree<O, T>(mine[i], theirs[i], length))
      {
        state.SkipWithError("fold and cub disagree");
        return;
      }
    }
  }
  double fold_s = 0, cub_s = 0, cub_again_s = 0;
  for (auto _ : state)
  {
    cub_s       = trailing ? median_seconds(cub_call) : 0;
    fold_s      = median_seconds(fold_call);
    cub_again_s = trailing ? median_seconds(cub_call) : 0;
    state.SetIterationTime(fold_s);
  }
  state.counters["cub_spread"] = trailing ? cub_again_s / cub_s : 0;
  record_stream(state, stream_seconds(fold_call), trailing ? stream_seconds(cub_call) : 0);
  record(state, name, fold_s, cub_s, (items + outputs) * double{sizeof(T)}, (items + outputs) * double{sizeof(T)});
}

//! Registers `axes_case<T, O>` as `name`.
template <typename T, Op O = Op::Sum>
void register_axes(std::vector<std::int64_t> shape, std::vector<int> axes, std::string name)
{
  benchmark::RegisterBenchmark(name.c_str(),
                               [shape, axes, name](benchmark::State& s) { axes_case<T, O>(s, shape, axes, name); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

void print_table()
{
  std::printf("\n%-48s %12s %12s %9s %9s %9s\n", "case", "fold us", "cub us", "fold/cub", "fold %pk", "cub %pk");
  for (const Row& r : rows)
  {
    std::printf("%-48s %12.1f %12.1f %9.3f %9.1f %9.1f\n",
                r.name.c_str(),
                r.fold_us,
                r.cub_us,
                r.cub_us > 0 ? r.fold_us / r.cub_us : 0.0,
                100.0 * r.bytes / (r.fold_us * 1e-6) / 1e9 / facts.peak_gbps,
                r.cub_us > 0 ? 100.0 * r.cub_bytes / (r.cub_us * 1e-6) / 1e9 / facts.peak_gbps : 0.0);
  }
}
} // namespace

int main(int argc, char** argv)
{
  benchmark::Initialize(&argc, argv);
  if (const char* mib = std::getenv("FOLD_CASE_MIB"); mib != nullptr && std::atoll(mib) > 0)
  {
    case_bytes = static_cast<std::size_t>(std::atoll(mib)) << 20;
  }
  facts = bench::device_facts();
  benchmark::AddCustomContext("device", facts.name);
  benchmark::AddCustomContext("sms", std::to_string(facts.sms));
  benchmark::AddCustomContext("peak_GBps", std::to_string(facts.peak_gbps));
  benchmark::AddCustomContext("case_bytes", std::to_string(case_bytes));
  if (const char* commit = std::getenv("FOLD_COMMIT"))
  {
    benchmark::AddCustomContext("commit", commit);
  }
  std::printf("device: %s, %d SMs, peak %.0f GB/s\n", facts.name.c_str(), facts.sms, facts.peak_gbps);

  // The reference: the same bytes of float, int32 and half as one segment, through DeviceReduce::Sum (fold and cub).
  add_whole<float>();
  add_whole<std::int32_t>();
  add_whole<__half>();
  // Sum over float, every distribution. Fixed lengths: every power of two from 1 to 2^24 and odd ones, through
  // offsets and through the fixed-size overload.
  std::vector<std::int64_t> fixed_lengths = {3, 7, 33, 100, 1000, 100000};
  for (int p = 0; p <= 24; ++p)
  {
    fixed_lengths.push_back(std::int64_t{1} << p);
  }
  std::sort(fixed_lengths.begin(), fixed_lengths.end());
  for (std::int64_t length : fixed_lengths)
  {
    add_segmented<float, int, Op::Sum>(fixed(length));
  }
  for (std::int64_t length : fixed_lengths)
  {
    add_segmented<float, int, Op::Sum, true>(fixed(length), "/sized");
  }
  for (const Distribution& d : random_distributions)
  {
    add_segmented<float, int, Op::Sum>(d);
  }
  // The other types and operators over a representative subset.
  const std::vector<Distribution> subset = {fixed(1),
                                            fixed(7),
                                            fixed(128),
                                            fixed(1000),
                                            fixed(65536),
                                            distribution("uniform-1-64"),
                                            distribution("uniform-256-4096"),
                                            distribution("lognormal-32-1"),
                                            distribution("powerlaw-0.7"),
                                            distribution("bimodal-8-4096"),
                                            distribution("onehuge-1-8"),
                                            distribution("empty50-1-64")};
  for (const Distribution& d : subset)
  {
    add_segmented<std::int32_t, int, Op::Sum>(d);
  }
  for (const Distribution& d : subset)
  {
    add_segmented<__half, int, Op::Sum>(d);
  }
  // Half's small segments through offsets at more lengths: lane runs of 5, 7 and 8 items (of at most 8) in groups
  // of 2 to 32 lanes.
  for (std::int64_t length : {16, 33, 64, 100, 256})
  {
    add_segmented<__half, int, Op::Sum>(fixed(length));
  }
  for (const Distribution& d : subset)
  {
    add_segmented<float, int, Op::Min>(d);
  }
  for (const Distribution& d : subset)
  {
    add_segmented<float, int, Op::ArgMax>(d);
  }
  // Unsorted and overlapping segments, short and long, for the other operators too.
  for (const char* name : {"shuffled-1-64", "overlap-1-64", "overlap-256-4096"})
  {
    add_segmented<float, int, Op::Min>(distribution(name));
    add_segmented<float, int, Op::ArgMax>(distribution(name));
  }
  // The fixed-size overload over the other types and operators, the small lengths most of all (lane runs of 2 or 4
  // items loaded whole where every run is and the input is aligned; issue 19 asks 90 % of peak).
  const std::vector<Distribution> sized_subset = {
      fixed(1), fixed(2), fixed(7), fixed(8), fixed(16), fixed(33), fixed(128), fixed(1000), fixed(65536)};
  for (const Distribution& d : sized_subset)
  {
    add_segmented<std::int32_t, int, Op::Sum, true>(d, "/sized");
  }
  for (const Distribution& d : sized_subset)
  {
    add_segmented<__half, int, Op::Sum, true>(d, "/sized");
  }
  for (const Distribution& d : sized_subset)
  {
    add_segmented<float, int, Op::Min, true>(d, "/sized");
  }
  for (const Distribution& d : sized_subset)
  {
    add_segmented<float, int, Op::ArgMax, true>(d, "/sized");
  }
  // 64-bit offsets.
  for (const Distribution& d :
       {fixed(1), distribution("uniform-1-512"), distribution("powerlaw-0.7"), distribution("onehuge-1-8")})
  {
    add_segmented<float, std::int64_t, Op::Sum>(d, "/off64");
  }
  for (const Distribution& d : {distribution("uniform-1-512"), distribution("onehuge-1-8")})
  {
    add_segmented<float, std::int64_t, Op::ArgMax>(d, "/off64");
  }

  const std::vector<std::pair<std::vector<std::int64_t>, std::string>> matrices = {{{1 << 14, 1 << 14}, "16384x16384"},
                                                                                   {{1 << 24, 16}, "16777216x16"},
                                                                                   {{16, 1 << 24}, "16x16777216"},
                                                                                   {{1 << 12, 1 << 16}, "4096x65536"}};
  for (const auto& [shape, label] : matrices)
  {
    register_axes<float>(shape, {0}, "axes/" + label + "/axis0");
    register_axes<float>(shape, {1}, "axes/" + label + "/axis1");
  }
  register_axes<float>({64, 56, 56, 256}, {0, 1, 2}, "axes/64x56x56x256/axes012");
  // Issue 19's shapes at 2^26 items: the innermost axis with 2-256 items per output, outer axes with 2-64 kept, the
  // middle axis of a 3-D array, all axes but the first (torch_axes.py runs the same list).
  for (int log2_cols : {1, 2, 6, 8})
  {
    const std::int64_t cols = std::int64_t{1} << log2_cols, rows = (std::int64_t{1} << 26) / cols;
    const std::string label = std::to_string(rows) + "x" + std::to_string(cols);
    register_axes<float>({rows, cols}, {1}, "axes/" + label + "/axis1");
    if (log2_cols <= 6)
    {
      register_axes<float>({rows, cols}, {0}, "axes/" + label + "/axis0");
    }
  }
  register_axes<float>({64, 4096, 256}, {1}, "axes/64x4096x256/axis1");
  register_axes<float>({4096, 64, 256}, {1}, "axes/4096x64x256/axis1");
  register_axes<float>({256, 256, 1024}, {1}, "axes/256x256x1024/axis1");
  register_axes<float>({256, 512, 512}, {1, 2}, "axes/256x512x512/axes12");
  // Sum over half and int32 for a few of those shapes (the name's last part is the type).
  for (const auto& [shape, axes, name] :
       std::vector<std::tuple<std::vector<std::int64_t>, std::vector<int>, std::string>>{
           {{1 << 14, 1 << 14}, {0}, "axes/16384x16384/axis0"},
           {{1 << 14, 1 << 14}, {1}, "axes/16384x16384/axis1"},
           {{1 << 24, 16}, {0}, "axes/16777216x16/axis0"},
           {{1 << 24, 16}, {1}, "axes/16777216x16/axis1"},
           {{64, 4096, 256}, {1}, "axes/64x4096x256/axis1"}})
  {
    register_axes<__half>(shape, axes, name + "/half");
    register_axes<std::int32_t>(shape, axes, name + "/int32");
  }
  // Max (`torch.amax`) over float for some of them and over half for two (the name's last part is the operator).
  for (const auto& [shape, axes, name] :
       std::vector<std::tuple<std::vector<std::int64_t>, std::vector<int>, std::string>>{
           {{1 << 14, 1 << 14}, {0}, "axes/16384x16384/axis0"},
           {{1 << 14, 1 << 14}, {1}, "axes/16384x16384/axis1"},
           {{1 << 12, 1 << 16}, {0}, "axes/4096x65536/axis0"},
           {{1 << 24, 16}, {0}, "axes/16777216x16/axis0"},
           {{1 << 24, 16}, {1}, "axes/16777216x16/axis1"},
           {{64, 4096, 256}, {1}, "axes/64x4096x256/axis1"},
           {{64, 56, 56, 256}, {0, 1, 2}, "axes/64x56x56x256/axes012"}})
  {
    register_axes<float, Op::Max>(shape, axes, name + "/max");
  }
  register_axes<__half, Op::Max>({1 << 14, 1 << 14}, {0}, "axes/16384x16384/axis0/half/max");
  register_axes<__half, Op::Max>({1 << 24, 16}, {1}, "axes/16777216x16/axis1/half/max");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_table();
  return 0;
}
