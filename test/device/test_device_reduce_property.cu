// SPDX-License-Identifier: Apache-2.0
// A randomized property test: each case draws a type, an algorithm (DeviceReduce's Sum, Min, Max, ArgMin, ArgMax
// and an ordered matrix product; DeviceSegmentedReduce's Sum and Max over random, overlapping segments;
// DeviceReduceAxes::Sum over a random shape and axes), a size, an alignment offset of the input, the values
// (with NaNs, infinities and signed zeros for the extrema) and a stream, and checks the result against a host
// reference: bit for bit where the result is exact, within the documented error bound for floating-point sums.
//
// Cases come from seeds: FOLD_PROPERTY_SEED (default 1) onwards, FOLD_PROPERTY_CASES of them (default 120, the
// fixed list every build runs; scripts/gpu-suite.sh adds a longer run from a random seed). A failure names its
// seed: rerun it alone with FOLD_PROPERTY_SEED=<seed> FOLD_PROPERTY_CASES=1.
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "device_test_util.cuh"
#include "ops_util.cuh"
#include "test_util.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace
{
using fold_test::DeviceBuffer;
using fold_test::Random;

enum class Algo
{
  sum,
  min,
  max,
  arg_min,
  arg_max,
  ordered, // TransformReduce to 2x2 matrices, multiplied in index order
  segmented_sum,
  segmented_max,
  axes_sum,
  count
};
constexpr const char* algo_names[] = {
    "Sum", "Min", "Max", "ArgMin", "ArgMax", "ordered product", "segmented Sum", "segmented Max", "axes Sum"};

//! Everything a case draws.
struct Case
{
  std::uint64_t seed;
  int type;
  Algo algo;
  std::size_t n;
  std::size_t offset; // items between the allocation's start and the input
  int stream_kind;    // 0: the legacy default stream, 1: per-thread default, 2: a blocking stream, 3: non-blocking
  bool specials;      // NaN, infinities and signed zeros among the values (extrema of floats only)
  fold_test::Values values;
};

std::size_t log_uniform(Random& random, std::size_t max)
{
  return static_cast<std::size_t>(std::exp2(random.uniform() * std::log2(static_cast<double>(max) + 1))) - 1;
}

Case draw(std::uint64_t seed)
{
  Random random{seed * 0x2545F4914F6CDD1Dull + 1};
  Case c{};
  c.seed         = seed;
  c.type         = static_cast<int>(random.between(0, 4));
  c.algo         = static_cast<Algo>(random.between(0, static_cast<int>(Algo::count) - 1));
  const int pick = static_cast<int>(random.between(0, 9));
  c.n      = pick == 0 ? static_cast<std::size_t>(random.between(0, 2)) : log_uniform(random, std::size_t{1} << 24);
  c.offset = static_cast<std::size_t>(random.between(0, 15));
  c.stream_kind = static_cast<int>(random.between(0, 3));
  c.specials    = random.between(0, 2) == 0;
  c.values      = static_cast<fold_test::Values>(random.between(0, 2));
  return c;
}

//! Runs `f(T{})` for the case's type.
template <typename F>
void with_type(int type, F&& f)
{
  switch (type)
  {
  case 0:
    return f(std::uint8_t{});
  case 1:
    return f(std::int32_t{});
  case 2:
    return f(std::int64_t{});
  case 3:
    return f(float{});
  default:
    return f(double{});
  }
}

//! The sum of `values` as the accumulator `AccumT` computes it: integers wrap (two's complement).
template <typename AccumT, typename T>
AccumT wrapping_sum(const T* values, std::size_t n)
{
  using U = std::make_unsigned_t<AccumT>;
  U sum   = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    sum += static_cast<U>(static_cast<AccumT>(values[i]));
  }
  return static_cast<AccumT>(sum);
}

//! `x` strictly before `y` in the order of the minimum (`ForMax`: the maximum): NaN first, then the signed zero
//! of the extremum's side, then by value.
template <bool ForMax, typename T>
bool before(T x, T y)
{
  if constexpr (std::is_floating_point_v<T>)
  {
    if (std::isnan(x) || std::isnan(y))
    {
      return std::isnan(x) && !std::isnan(y);
    }
    if (x == y)
    {
      return std::signbit(x) != std::signbit(y) && std::signbit(x) != ForMax;
    }
  }
  return ForMax ? y < x : x < y;
}

//! The extremum of `values` and its first index (the identity and -1 when empty).
template <bool ForMax, typename T>
std::pair<T, std::int64_t> host_extremum(const T* values, std::size_t n)
{
  T best          = ForMax
                        ? (std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest())
                        : (std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max());
  std::int64_t at = -1;
  for (std::size_t i = 0; i < n; ++i)
  {
    if (at < 0 || before<ForMax>(values[i], best))
    {
      best = values[i];
      at   = static_cast<std::int64_t>(i);
    }
  }
  if constexpr (std::is_floating_point_v<T>)
  {
    best = std::isnan(best) ? std::numeric_limits<T>::quiet_NaN() : best;
  }
  return {best, at};
}

template <typename T>
std::vector<T> draw_values(const Case& c, std::size_t count, Random& random)
{
  std::vector<T> v = fold_test::random_values<T>(count, c.seed + 17, c.values);
  if constexpr (std::is_floating_point_v<T>)
  {
    const bool extremum = c.algo == Algo::min || c.algo == Algo::max || c.algo == Algo::arg_min ||
                          c.algo == Algo::arg_max || c.algo == Algo::segmented_max;
    if (c.specials && extremum && count > 0)
    {
      const T special[]  = {std::numeric_limits<T>::quiet_NaN(),
                            -std::numeric_limits<T>::quiet_NaN(),
                            std::numeric_limits<T>::infinity(),
                            -std::numeric_limits<T>::infinity(),
                            T(0),
                            -T(0)};
      const int how_many = static_cast<int>(random.between(1, 8));
      for (int k = 0; k < how_many; ++k)
      {
        // Mostly zeros and infinities; a NaN in one case in three.
        const int which = static_cast<int>(random.between(random.between(0, 2) == 0 ? 0 : 2, 5));
        v[static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(count) - 1))] = special[which];
      }
    }
  }
  return v;
}

//! The sum's check: exact for integers; for floating point within `fold_test::sum_error_bound` (DeviceReduce)
//! or, for a segment or an output of the axis reduction (`warp_depth`), the bound of a tree in which a lane takes
//! up to a 32nd of the items in turn.
template <typename T, typename AccumT>
bool sum_matches(AccumT got, const T* values, std::size_t n, std::string& detail, bool warp_depth = false)
{
  if constexpr (std::is_integral_v<AccumT>)
  {
    const AccumT expected = wrapping_sum<AccumT>(values, n);
    detail                = std::to_string(got) + " vs " + std::to_string(expected);
    return got == expected;
  }
  else
  {
    const auto reference = fold_test::sum_reference(std::vector<T>(values, values + n));
    const double items   = static_cast<double>(n);
    const double bound   = warp_depth ? (items / 32 + 2 * std::log2(items + 2) + 64) *
                                          fold_test::unit_roundoff<AccumT>() * reference.magnitude
                                      : fold_test::sum_error_bound<AccumT, AccumT, T>(n, reference);
    detail = std::to_string(got) + " vs " + std::to_string(reference.sum) + " (bound " + std::to_string(bound) + ")";
    return std::fabs(static_cast<double>(got) - reference.sum) <= bound;
  }
}

//! `item -> a matrix that depends on it`: products of these are wrong if any two items trade places.
struct ToMatrix
{
  template <typename T>
  __host__ __device__ fold_test::Mat2 operator()(const T& x) const
  {
    std::uint32_t bits = 0;
    if constexpr (std::is_integral_v<T>)
    {
      bits = static_cast<std::uint32_t>(static_cast<std::uint64_t>(x) % fold_test::prime);
    }
    else // finite values in [-16, 16]
    {
      bits = static_cast<std::uint32_t>(static_cast<std::int64_t>(x * 1000) + 16000);
    }
    return {1 + bits % 1000, 2, bits % 7, 1};
  }
};

struct StreamHolder
{
  cudaStream_t stream = 0;
  bool owned          = false;
  explicit StreamHolder(int kind)
  {
    if (kind == 1)
    {
      stream = cudaStreamPerThread;
    }
    else if (kind >= 2)
    {
      CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, kind == 2 ? cudaStreamDefault : cudaStreamNonBlocking));
      owned = true;
    }
  }
  ~StreamHolder()
  {
    if (owned)
    {
      cudaStreamDestroy(stream);
    }
  }
};

template <typename T>
void run_case(const Case& c)
{
  Random random{c.seed ^ 0xABCDEFull};
  StreamHolder holder(c.stream_kind);
  const cudaStream_t stream = holder.stream;
  const auto values         = draw_values<T>(c, c.n, random);
  // The input starts `offset` items into its allocation; the items before it are poison.
  DeviceBuffer<T> storage(c.offset + c.n);
  storage.poison();
  CUDA_REQUIRE(cudaMemcpy(storage.get() + c.offset, values.data(), c.n * sizeof(T), cudaMemcpyHostToDevice));
  const T* d_in       = storage.get() + c.offset;
  const T* h_in       = values.data();
  const std::size_t n = c.n;

  auto run = [&](auto call) { fold_test::two_call(call, stream); };
  std::string detail;
  switch (c.algo)
  {
  case Algo::sum:
  {
    using AccumT = decltype(T{} + T{});
    DeviceBuffer<AccumT> out(1);
    out.poison();
    run([&](void* t, std::size_t& b) { return fold::DeviceReduce::Sum(t, b, d_in, out.get(), n, stream); });
    CHECK(sum_matches<T>(out.front(), h_in, n, detail));
    break;
  }
  case Algo::min:
  case Algo::max:
  case Algo::arg_min:
  case Algo::arg_max:
  {
    const bool for_max = c.algo == Algo::max || c.algo == Algo::arg_max;
    const bool arg     = c.algo == Algo::arg_min || c.algo == Algo::arg_max;
    DeviceBuffer<T> out(1);
    DeviceBuffer<std::int64_t> index(1);
    out.poison();
    index.poison();
    run(
        [&](void* t, std::size_t& b)
        {
          if (arg)
          {
            return for_max ? fold::DeviceReduce::ArgMax(t, b, d_in, out.get(), index.get(), n, stream)
                           : fold::DeviceReduce::ArgMin(t, b, d_in, out.get(), index.get(), n, stream);
          }
          return for_max ? fold::DeviceReduce::Max(t, b, d_in, out.get(), n, stream)
                         : fold::DeviceReduce::Min(t, b, d_in, out.get(), n, stream);
        });
    const auto expected = for_max ? host_extremum<true>(h_in, n) : host_extremum<false>(h_in, n);
    INFO("got " << fold_test::to_double(out.front()) << ", expected " << fold_test::to_double(expected.first) << " at "
                << expected.second);
    CHECK(fold_test::same_bits(out.front(), expected.first));
    if (arg)
    {
      CHECK(index.front() == expected.second);
    }
    break;
  }
  case Algo::ordered:
  {
    DeviceBuffer<fold_test::Mat2> out(1);
    out.poison();
    const fold_test::Mat2 identity{1, 0, 0, 1};
    run(
        [&](void* t, std::size_t& b)
        {
          return fold::DeviceReduce::TransformReduce(
              t, b, d_in, out.get(), n, fold_test::MatMul{}, ToMatrix{}, identity, stream);
        });
    fold_test::Mat2 expected = identity;
    for (std::size_t i = 0; i < n; ++i)
    {
      expected = fold_test::MatMul{}(expected, ToMatrix{}(h_in[i]));
    }
    CHECK(out.front() == expected);
    break;
  }
  case Algo::segmented_sum:
  case Algo::segmented_max:
  {
    // Random segments over the input: ragged, some empty or inverted, some overlapping, in any order.
    const auto segments = static_cast<std::int64_t>(log_uniform(random, 3000));
    std::vector<std::int64_t> begins(segments), ends(segments);
    for (std::int64_t s = 0; s < segments; ++s)
    {
      const auto length = static_cast<std::int64_t>(log_uniform(random, n));
      begins[s]         = random.between(0, static_cast<std::int64_t>(n - std::min<std::size_t>(n, length)));
      ends[s]           = random.between(0, 19) == 0 ? begins[s] - 1 : begins[s] + length;
    }
    DeviceBuffer<std::int64_t> d_begins(begins), d_ends(ends);
    const bool for_max = c.algo == Algo::segmented_max;
    using AccumT       = decltype(T{} + T{});
    DeviceBuffer<AccumT> sums(segments);
    DeviceBuffer<T> maxima(segments);
    sums.poison();
    maxima.poison();
    run(
        [&](void* t, std::size_t& b)
        {
          return for_max ? fold::DeviceSegmentedReduce::Max(
                               t, b, d_in, maxima.get(), segments, d_begins.get(), d_ends.get(), stream)
                         : fold::DeviceSegmentedReduce::Sum(
                               t, b, d_in, sums.get(), segments, d_begins.get(), d_ends.get(), stream);
        });
    const auto got_sums   = sums.to_host();
    const auto got_maxima = maxima.to_host();
    long wrong            = 0;
    for (std::int64_t s = 0; s < segments; ++s)
    {
      const std::size_t length = ends[s] > begins[s] ? static_cast<std::size_t>(ends[s] - begins[s]) : 0;
      const T* first           = h_in + (length > 0 ? begins[s] : 0);
      const bool ok            = for_max ? fold_test::same_bits(got_maxima[s], host_extremum<true>(first, length).first)
                                         : sum_matches<T>(got_sums[s], first, length, detail, true);
      if (!ok && wrong++ < 3)
      {
        FAIL_CHECK("segment " << s << " [" << begins[s] << ", " << ends[s] << ") " << detail);
      }
    }
    CHECK(wrong == 0);
    break;
  }
  default: // axes_sum
  {
    // A random shape of rank 1..5 with at most n (>= 1) items, and a random non-empty set of axes.
    const int rank = static_cast<int>(random.between(1, 5));
    fold::Extents shape;
    shape.rank        = rank;
    std::size_t items = 1;
    for (int d = 0; d < rank; ++d)
    {
      const auto budget = static_cast<std::int64_t>(std::max<std::size_t>(1, n / items));
      shape.dims[d]     = random.between(1, std::min<std::int64_t>(budget, d + 1 == rank ? budget : 300));
      items *= static_cast<std::size_t>(shape.dims[d]);
    }
    unsigned mask = static_cast<unsigned>(random.between(1, (1 << rank) - 1));
    std::vector<int> axis_list;
    for (int d = 0; d < rank; ++d)
    {
      if (mask >> d & 1u)
      {
        axis_list.push_back(d);
      }
    }
    std::reverse(axis_list.begin(), axis_list.end()); // any order
    const fold::Axes axes(axis_list.data(), static_cast<int>(axis_list.size()));
    std::size_t outputs = 1;
    for (int d = 0; d < rank; ++d)
    {
      outputs *= (mask >> d & 1u) ? 1 : static_cast<std::size_t>(shape.dims[d]);
    }
    if (items > n)
    {
      break; // n == 0: nothing to reduce that fits
    }
    using AccumT = decltype(T{} + T{});
    DeviceBuffer<AccumT> out(outputs);
    out.poison();
    run([&](void* t, std::size_t& b)
        { return fold::DeviceReduceAxes::Sum(t, b, d_in, out.get(), shape, axes, stream); });
    // The host: gather each output's items in row-major order, then check their sum.
    std::vector<std::vector<T>> groups(outputs);
    std::vector<std::int64_t> index(rank, 0);
    for (std::size_t i = 0; i < items; ++i)
    {
      std::size_t o = 0;
      for (int d = 0; d < rank; ++d)
      {
        o = (mask >> d & 1u) ? o : o * static_cast<std::size_t>(shape.dims[d]) + static_cast<std::size_t>(index[d]);
      }
      groups[o].push_back(h_in[i]);
      for (int d = rank - 1; d >= 0 && ++index[d] == shape.dims[d]; --d)
      {
        index[d] = 0;
      }
    }
    const auto got = out.to_host();
    long wrong     = 0;
    for (std::size_t o = 0; o < outputs; ++o)
    {
      if (!sum_matches<T>(got[o], groups[o].data(), groups[o].size(), detail, true) && wrong++ < 3)
      {
        FAIL_CHECK("output " << o << ": " << detail);
      }
    }
    CHECK(wrong == 0);
    break;
  }
  }
}

std::uint64_t env_or(const char* name, std::uint64_t fallback)
{
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoull(value, nullptr, 10) : fallback;
}
} // namespace

TEST_CASE("Random type, algorithm, size, alignment, values and stream against a host reference", "[device][property]")
{
  const std::uint64_t first = env_or("FOLD_PROPERTY_SEED", 1);
  const std::uint64_t cases = env_or("FOLD_PROPERTY_CASES", 120);
  std::printf("property test: seeds %llu..%llu\n",
              static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(first + cases - 1));
  for (std::uint64_t seed = first; seed < first + cases; ++seed)
  {
    const Case c                    = draw(seed);
    static const char* type_names[] = {"uint8", "int32", "int64", "float", "double"};
    INFO("seed " << seed << ": " << algo_names[static_cast<int>(c.algo)] << " over " << c.n << " " << type_names[c.type]
                 << " at offset " << c.offset << ", stream kind " << c.stream_kind
                 << (c.specials ? ", with special values" : "") << ", values " << static_cast<int>(c.values));
    with_type(c.type, [&](auto t) { run_case<decltype(t)>(c); });
  }
}
