// SPDX-License-Identifier: Apache-2.0
// DeviceSegmentedReduce::Sum and Reduce: every size class (empty, lane groups of each width, warp, block, large
// spread over the grid and large taken by one block), ragged, overlapping and out-of-order segments, the
// fixed-size overloads, against a host reference and against cub::DeviceSegmentedReduce; every length distribution
// of fold-segmented-bench (issue 19) for Sum of float and int32 and Min and ArgMax of float, back to back and
// scrambled (unsorted, overlapping); results that do not depend on how a segment was scheduled or on the other
// segments of its batch; each result stored once; a call captured into a graph and replayed; the argument checks.
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "device_test_util.cuh"
#include "ops_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace
{
using fold::detail::SegmentClass;
using fold::detail::SegmentClasses;

template <typename T, typename AccumT = T>
SegmentClasses classes()
{
  return SegmentClasses::make(fold::detail::segmented_policy(),
                              fold::detail::reduce_tile_shape<const T*, AccumT>(fold_test::current_ptx_version()));
}

//! Segment lengths of every class of `sizes`, and each class's edges, in a seeded random order.
std::vector<std::int64_t> lengths_of_every_class(const SegmentClasses& sizes, std::uint64_t seed)
{
  const auto small = static_cast<std::int64_t>(sizes.small_max), warp = static_cast<std::int64_t>(sizes.warp_max),
             block                  = static_cast<std::int64_t>(sizes.block_max);
  std::vector<std::int64_t> lengths = {0,         1,        2,    3,        4,         5,     8,         9,
                                       16,        17,       32,   33,       64,        65,    small - 1, small,
                                       small + 1, warp - 1, warp, warp + 1, block - 1, block, block + 1, 3 * block + 7};
  fold_test::Random random{seed};
  for (int i = 0; i < 300; ++i)
  {
    lengths.push_back(random.between(0, small));
  }
  for (int i = 0; i < 60; ++i)
  {
    lengths.push_back(random.between(small + 1, warp));
  }
  for (int i = 0; i < 12; ++i)
  {
    lengths.push_back(random.between(warp + 1, block));
  }
  for (std::size_t i = lengths.size() - 1; i > 0; --i)
  {
    std::swap(lengths[i], lengths[random.next() % (i + 1)]);
  }
  return lengths;
}

struct Segments
{
  std::vector<std::int64_t> begins, ends;
  std::int64_t items = 0;
};

//! The offsets `0, size, ..., count * size` of `count` back-to-back segments of `size` items (begins and ends one
//! apart).
std::vector<std::int64_t> fixed_offsets(std::int64_t count, std::int64_t size)
{
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(count) + 1);
  for (std::int64_t i = 0; i <= count; ++i)
  {
    offsets[static_cast<std::size_t>(i)] = i * size;
  }
  return offsets;
}

//! Back-to-back segments of `lengths`.
Segments back_to_back(const std::vector<std::int64_t>& lengths)
{
  Segments s;
  for (std::int64_t length : lengths)
  {
    s.begins.push_back(s.items);
    s.items += length;
    s.ends.push_back(s.items);
  }
  return s;
}

//! The sum of `values[begin, end)` as the device's integer sum gives it: modulo 2^bits of `T`.
template <typename T>
T wrapped_sum(const std::vector<T>& values, std::int64_t begin, std::int64_t end)
{
  std::uint64_t sum = 0;
  for (std::int64_t j = begin; j < end; ++j)
  {
    sum += static_cast<std::uint64_t>(values[static_cast<std::size_t>(j)]);
  }
  return static_cast<T>(sum);
}

template <typename T>
double host_sum(const std::vector<T>& values, std::int64_t begin, std::int64_t end, double& magnitude)
{
  double sum = 0;
  magnitude  = 0;
  for (std::int64_t i = begin; i < end; ++i)
  {
    sum += fold_test::to_double(values[i]);
    magnitude += std::fabs(fold_test::to_double(values[i]));
  }
  return sum;
}

//! A bound on the error of fold's (or cub's) float sum of a segment of `length` items against the exact sum: a
//! summation tree of depth d errs by at most d * u * sum|x| (Higham, 4.2), `u` the unit roundoff. Both trees are at
//! most length / 32 + 2 * log2(length + 2) + 64 deep: no thread folds more than length / 32 items of a segment in
//! sequence (a small segment's lane at most `lane_items`, a warp's lane length / 32, a block's thread or a unit's
//! less), and the warp, block and partial trees above are logarithmic. The host's double sum is exact enough (its
//! own error is 2^-29 of this bound's unit).
double segment_bound(std::int64_t length, double magnitude, double unit)
{
  return (static_cast<double>(length) / 32 + 2 * std::log2(static_cast<double>(length) + 2) + 64) * unit * magnitude;
}

//! Counts the segments a check fails and keeps a description of the first; one Catch2 assertion per call, so that
//! millions of segments cost no more than a loop.
class Failures
{
public:
  //! Records a failure of `what` at segment `i` (a no-op when `ok`).
  template <typename DescribeT>
  void check(bool ok, std::int64_t i, DescribeT&& describe)
  {
    if (!ok && count_++ == 0)
    {
      std::ostringstream text;
      text << "segment " << i << ": ";
      describe(text);
      first_ = text.str();
    }
  }
  void report() const
  {
    INFO(count_ << " segments failed; the first: " << first_);
    CHECK(count_ == 0);
  }

private:
  std::int64_t count_ = 0;
  std::string first_;
};

//! fold's and cub's segmented sums of `segments` over `values`, checked against the host (floats within
//! `segment_bound`, integers exactly, modulo 2^bits as the device's sums wrap) and against each other (integers
//! exactly); with `OffsetT` offsets, begins and ends apart. Returns fold's results.
template <typename T, typename OffsetT, typename OptionT = fold::run_to_run_t>
std::vector<T> check_sums(const std::vector<T>& values, const Segments& segments, OptionT option = {})
{
  const auto n = static_cast<std::int64_t>(segments.begins.size());
  fold_test::DeviceBuffer<T> d_in(values);
  fold_test::DeviceBuffer<OffsetT> d_begins(std::vector<OffsetT>(segments.begins.begin(), segments.begins.end()));
  fold_test::DeviceBuffer<OffsetT> d_ends(std::vector<OffsetT>(segments.ends.begin(), segments.ends.end()));
  fold_test::DeviceBuffer<T> d_out(n), d_cub(n);
  d_out.poison();
  d_cub.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceSegmentedReduce::Sum(
            temp, bytes, d_in.get(), d_out.get(), n, d_begins.get(), d_ends.get(), 0, option);
      });
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in.get(), d_cub.get(), n, d_begins.get(), d_ends.get());
      });
  const std::vector<T> out = d_out.to_host(), theirs = d_cub.to_host();
  Failures failures;
  for (std::int64_t i = 0; i < n; ++i)
  {
    const auto length = std::max<std::int64_t>(segments.ends[i] - segments.begins[i], 0);
    if constexpr (std::is_integral_v<T>)
    {
      const T wrapped = wrapped_sum(values, segments.begins[i], segments.ends[i]);
      failures.check(out[i] == wrapped && out[i] == theirs[i],
                     i,
                     [&](std::ostream& o)
                     {
                       o << "[" << segments.begins[i] << ", " << segments.ends[i] << "): fold " << out[i] << ", cub "
                         << theirs[i] << ", host " << wrapped;
                     });
    }
    else
    {
      double magnitude   = 0;
      const double sum   = host_sum(values, segments.begins[i], segments.ends[i], magnitude);
      const double bound = segment_bound(length, magnitude, fold_test::unit_roundoff<T>());
      failures.check(std::fabs(static_cast<double>(out[i]) - sum) <= bound &&
                         std::fabs(static_cast<double>(theirs[i]) - sum) <= bound,
                     i,
                     [&](std::ostream& o)
                     {
                       o << "[" << segments.begins[i] << ", " << segments.ends[i] << "): fold " << out[i] << ", cub "
                         << theirs[i] << ", host " << sum << ", bound " << bound;
                     });
    }
  }
  failures.report();
  return out;
}
//! fold's sum of the segment `target` when it comes after segments of `before` lengths and `gap` items that no
//! segment covers, and before segments of `after` lengths, all over seeded random floats (checked against the host
//! and cub as `check_sums` does).
float sum_in_batch(const std::vector<float>& target,
                   const std::vector<std::int64_t>& before,
                   std::int64_t gap,
                   const std::vector<std::int64_t>& after,
                   std::uint64_t seed)
{
  Segments segments        = back_to_back(before);
  const std::int64_t first = segments.items + gap;
  std::int64_t end         = first + static_cast<std::int64_t>(target.size());
  segments.begins.push_back(first);
  segments.ends.push_back(end);
  for (std::int64_t length : after)
  {
    segments.begins.push_back(end);
    end += length;
    segments.ends.push_back(end);
  }
  segments.items = end;
  auto values    = fold_test::random_values<float>(static_cast<std::size_t>(end), seed, fold_test::Values::full_range);
  std::copy(target.begin(), target.end(), values.begin() + first);
  return check_sums<float, std::int64_t>(values, segments)[before.size()];
}

//! The segment length distributions of fold-segmented-bench (issue 19), at test size: `items` items in all, the
//! random ones from their own seeds.
enum class Shape
{
  fixed,     //!< `a` items each, as many as fit
  uniform,   //!< uniform in [a, b]
  lognormal, //!< round(a * exp(b * z)), z standard normal: median a, at least 1
  powerlaw,  //!< floor(u^(-1/a)), u uniform in (0, 1]: P(L >= x) = x^-a from 1 item, at most items / 4
  bimodal,   //!< b with probability c, else a
  one_huge,  //!< three quarters of the items in one segment (a large one), in the middle of segments of [a, b]
  empty,     //!< empty with probability c, else uniform in [a, b]
};

struct Distribution
{
  std::string name;
  Shape shape;
  double a = 0, b = 0, c = 0;
};

//! Every distribution: fixed lengths (every power of two up to `items` and odd ones), uniform ranges, log-normal,
//! power-law, bimodal, one huge segment among many tiny ones, and many empty segments.
std::vector<Distribution> every_distribution(std::int64_t items)
{
  std::vector<Distribution> all;
  for (std::int64_t length = 1; length <= items; length *= 2)
  {
    all.push_back({"fixed-" + std::to_string(length), Shape::fixed, static_cast<double>(length)});
  }
  for (std::int64_t length : {3, 7, 33, 100, 1000, 100000})
  {
    all.push_back({"fixed-" + std::to_string(length), Shape::fixed, static_cast<double>(length)});
  }
  for (Distribution d : std::vector<Distribution>{{"uniform-1-16", Shape::uniform, 1, 16},
                                                  {"uniform-1-64", Shape::uniform, 1, 64},
                                                  {"uniform-1-512", Shape::uniform, 1, 512},
                                                  {"uniform-256-4096", Shape::uniform, 256, 4096},
                                                  {"lognormal-32-1", Shape::lognormal, 32, 1},
                                                  {"lognormal-256-2", Shape::lognormal, 256, 2},
                                                  {"powerlaw-0.7", Shape::powerlaw, 0.7},
                                                  {"powerlaw-1.2", Shape::powerlaw, 1.2},
                                                  {"bimodal-8-4096", Shape::bimodal, 8, 4096, 0.1},
                                                  {"onehuge-1-8", Shape::one_huge, 1, 8},
                                                  {"empty50-1-64", Shape::empty, 1, 64, 0.5},
                                                  {"empty90-1-64", Shape::empty, 1, 64, 0.9}})
  {
    all.push_back(d);
  }
  return all;
}

//! The lengths of `d`'s segments covering `items` items (fixed: as many whole segments as fit; random: the last
//! one cut to what is left).
std::vector<std::int64_t> lengths_of(const Distribution& d, std::int64_t items, std::uint64_t seed)
{
  std::vector<std::int64_t> lengths;
  const auto a = static_cast<std::int64_t>(d.a), b = static_cast<std::int64_t>(d.b);
  if (d.shape == Shape::fixed)
  {
    lengths.assign(static_cast<std::size_t>(items / a), a);
    return lengths;
  }
  fold_test::Random random{seed};
  const std::int64_t fill = d.shape == Shape::one_huge ? items / 4 : items;
  const double longest    = static_cast<double>(items / 4);
  auto clamped            = [&](double x) { return static_cast<std::int64_t>(std::min(std::max(x, 1.0), longest)); };
  for (std::int64_t total = 0; total < fill;)
  {
    std::int64_t length = 0;
    switch (d.shape)
    {
    case Shape::lognormal:
    {
      const double u1 = 1.0 - random.uniform(), u2 = random.uniform(); // Box-Muller
      length = clamped(
          std::nearbyint(d.a * std::exp(d.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2))));
      break;
    }
    case Shape::powerlaw:
      length = clamped(std::floor(std::pow(1.0 - random.uniform(), -1.0 / d.a)));
      break;
    case Shape::bimodal:
      length = random.uniform() < d.c ? b : a;
      break;
    case Shape::empty:
      length = random.uniform() < d.c ? 0 : random.between(a, b);
      break;
    default: // uniform, one_huge
      length = random.between(a, b);
      break;
    }
    length = std::min(length, fill - total);
    lengths.push_back(length);
    total += length;
  }
  if (d.shape == Shape::one_huge)
  {
    lengths.insert(lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2), items - fill);
  }
  return lengths;
}

//! `segments` listed in a random order, about a tenth of them stretched over their neighbours, and 200 more that
//! overlap them (a few reaching over most of the items): unsorted and overlapping segments, begins and ends apart.
Segments scrambled(const Segments& segments, std::uint64_t seed)
{
  fold_test::Random random{seed};
  Segments s = segments;
  for (std::size_t i = 0; i < s.begins.size(); ++i)
  {
    if (random.next() % 10 == 0)
    {
      s.ends[i] = std::min(s.items, s.ends[i] + random.between(0, 3000));
    }
  }
  for (int k = 0; k < 200 && s.items > 0; ++k)
  {
    const std::int64_t begin = random.between(0, s.items - 1);
    const std::int64_t most  = k % 40 == 0 ? s.items - begin : std::min<std::int64_t>(s.items - begin, 5000);
    s.begins.push_back(begin);
    s.ends.push_back(begin + random.between(0, most));
  }
  for (std::size_t i = s.begins.size() - 1; i > 0; --i)
  {
    const auto j = static_cast<std::size_t>(random.next() % (i + 1));
    std::swap(s.begins[i], s.begins[j]);
    std::swap(s.ends[i], s.ends[j]);
  }
  return s;
}

//! fold's and cub's Min and ArgMax of `segments` over `values` (32-bit offsets, begins and ends apart), against a
//! host reference and against each other, exactly. Empty segments get what each documents: fold +inf and
//! (-1, -inf), cub numeric_limits<float>::max() and (1, lowest()) (README, "Differences from cub").
void check_min_argmax(const std::vector<float>& values, const Segments& segments)
{
  const auto n = static_cast<std::int64_t>(segments.begins.size());
  fold_test::DeviceBuffer<float> d_in(values), d_min(n), d_cub_min(n);
  fold_test::DeviceBuffer<int> d_begins(std::vector<int>(segments.begins.begin(), segments.begins.end()));
  fold_test::DeviceBuffer<int> d_ends(std::vector<int>(segments.ends.begin(), segments.ends.end()));
  fold_test::DeviceBuffer<fold::KeyValuePair<int, float>> d_arg(n);
  fold_test::DeviceBuffer<cub::KeyValuePair<int, float>> d_cub_arg(n);
  d_min.poison();
  d_cub_min.poison();
  d_arg.poison();
  d_cub_arg.poison();
  const int* b = d_begins.get();
  const int* e = d_ends.get();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceSegmentedReduce::Min(temp, bytes, d_in.get(), d_min.get(), n, b, e); });
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in.get(), d_arg.get(), n, b, e); });
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return cub::DeviceSegmentedReduce::Min(temp, bytes, d_in.get(), d_cub_min.get(), n, b, e); });
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      { return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in.get(), d_cub_arg.get(), n, b, e); });
  const auto min = d_min.to_host(), cub_min = d_cub_min.to_host();
  const auto arg         = d_arg.to_host();
  const auto cub_arg     = d_cub_arg.to_host();
  constexpr float inf    = std::numeric_limits<float>::infinity();
  constexpr float max    = std::numeric_limits<float>::max();
  constexpr float lowest = std::numeric_limits<float>::lowest();
  Failures fold_min, fold_arg, cub_min_failures, cub_arg_failures;
  for (std::int64_t i = 0; i < n; ++i)
  {
    const std::int64_t begin = segments.begins[i], end = segments.ends[i];
    float smallest = inf;
    int best       = -1; // the first index of the largest item, from the segment's begin
    for (std::int64_t j = begin; j < end; ++j)
    {
      smallest = std::min(smallest, values[j]);
      if (best < 0 || values[j] > values[begin + best])
      {
        best = static_cast<int>(j - begin);
      }
    }
    const float largest = best < 0 ? -inf : values[begin + best];
    auto describe       = [&](std::ostream& o)
    {
      o << "[" << begin << ", " << end << "): fold min " << min[i] << ", cub min " << cub_min[i] << ", host min "
        << smallest << "; fold argmax (" << arg[i].key << ", " << arg[i].value << "), cub argmax (" << cub_arg[i].key
        << ", " << cub_arg[i].value << "), host (" << best << ", " << largest << ")";
    };
    fold_min.check(fold_test::same_bits(min[i], smallest), i, describe);
    fold_arg.check(arg[i].key == best && fold_test::same_bits(arg[i].value, largest), i, describe);
    if (best < 0) // empty: each writes what it documents
    {
      cub_min_failures.check(fold_test::same_bits(cub_min[i], max), i, describe);
      cub_arg_failures.check(cub_arg[i].key == 1 && fold_test::same_bits(cub_arg[i].value, lowest), i, describe);
    }
    else
    {
      cub_min_failures.check(fold_test::same_bits(cub_min[i], min[i]), i, describe);
      cub_arg_failures.check(
          cub_arg[i].key == arg[i].key && fold_test::same_bits(cub_arg[i].value, arg[i].value), i, describe);
    }
  }
  {
    INFO("fold Min against the host");
    fold_min.report();
  }
  {
    INFO("fold ArgMax against the host");
    fold_arg.report();
  }
  {
    INFO("cub Min against fold");
    cub_min_failures.report();
  }
  {
    INFO("cub ArgMax against fold");
    cub_arg_failures.report();
  }
}

//! The exact sum of segment `i` of fixed-size segments of `size` items of `values`.
double exact_fixed_sum(const std::vector<float>& values, std::int64_t i, std::int64_t size)
{
  double exact = 0;
  for (std::int64_t j = 0; j < size; ++j)
  {
    exact += values[static_cast<std::size_t>(i * size + j)];
  }
  return exact;
}

//! Whether a float sum of `size` items of magnitude below 1 is within rounding of the exact sum.
bool within_rounding(float got, double exact, std::int64_t size)
{
  return std::abs(got - exact) <= 1e-5 * (std::abs(exact) + static_cast<double>(size));
}

//! Segment `i` of the fixed-size float sums `got` (segments of `size` items of `values`): the bits of `twin[i]`,
//! the same segment reduced another way, and within rounding of the exact sum (items of magnitude below 1).
void require_fixed_segment_sum(const std::vector<float>& got,
                               const std::vector<float>& twin,
                               const std::vector<float>& values,
                               std::int64_t i,
                               std::int64_t size)
{
  INFO("segment " << i);
  const double exact = exact_fixed_sum(values, i, size);
  REQUIRE(fold_test::same_bits(got[i], twin[i]));
  REQUIRE(within_rounding(got[i], exact, size));
}

} // namespace

TEMPLATE_TEST_CASE("Segmented sums of every size class, against the host and cub",
                   "[device][segmented]",
                   float,
                   std::int32_t)
{
  const SegmentClasses sizes = classes<TestType>();
  const Segments segments    = back_to_back(lengths_of_every_class(sizes, 5));
  const auto values          = fold_test::random_values<TestType>(segments.items, 7, fold_test::Values::full_range);
  SECTION("int offsets")
  {
    check_sums<TestType, int>(values, segments);
  }
  SECTION("int64 offsets")
  {
    check_sums<TestType, std::int64_t>(values, segments);
  }
}

TEST_CASE("Segmented sums: overlapping, out-of-order and inverted segments", "[device][segmented]")
{
  const SegmentClasses sizes = classes<double>();
  const std::int64_t items   = static_cast<std::int64_t>(sizes.block_max) * 3;
  const auto values          = fold_test::random_values<double>(items, 11, fold_test::Values::full_range);
  fold_test::Random random{12};
  Segments segments;
  segments.items = items;
  for (int i = 0; i < 500; ++i)
  {
    const std::int64_t begin = random.between(0, items - 1);
    const std::int64_t cap   = std::min<std::int64_t>(items - begin, i % 7 == 0 ? items : 5000);
    const std::int64_t end   = i % 50 == 3 ? begin - random.between(0, begin) : begin + random.between(0, cap);
    segments.begins.push_back(begin);
    segments.ends.push_back(end); // an end before its begin is an empty segment
  }
  check_sums<double, std::int64_t>(values, segments);
  check_sums<double, int>(values, segments); // 32-bit offsets: the warp kernel's one-word begins and lengths
}

TEST_CASE("Segmented sums do not depend on how large segments are scheduled", "[device][segmented]")
{
  // A few large segments among small ones: their units spread over the whole grid by default; each taken by one
  // block, from a range scan, when the lists are capped below their count. Every float sum must keep its bits.
  const SegmentClasses sizes = classes<float>();
  std::vector<std::int64_t> lengths;
  for (int i = 0; i < 6; ++i)
  {
    lengths.push_back(static_cast<std::int64_t>(sizes.block_max) * (i + 1) + 977 * i);
    lengths.push_back(i * 3);
    lengths.push_back(static_cast<std::int64_t>(sizes.warp_max) + i);
  }
  lengths.push_back(static_cast<std::int64_t>(sizes.unit_items(1ull << 26)) * 300 + 5); // units of several tiles
  const Segments segments         = back_to_back(lengths);
  const auto values               = fold_test::random_values<float>(segments.items, 13, fold_test::Values::full_range);
  const std::vector<float> spread = check_sums<float, std::int64_t>(values, segments);
  for (int cap : {1, 3, 6})
  {
    std::vector<float> capped;
    {
      fold::detail::DispatchHooks hooks;
      hooks.max_listed_segments = cap;
      fold_test::ForceDispatch force(hooks);
      capped = check_sums<float, std::int64_t>(values, segments, fold_test::forced);
    }
    INFO("at most " << cap << " large segments spread");
    for (std::size_t i = 0; i < spread.size(); ++i)
    {
      CHECK(fold_test::same_bits(spread[i], capped[i]));
    }
  }
}

TEST_CASE("Segmented sums over more large segments than the first lists held", "[device][segmented]")
{
  // Segments just past the block class are large ones of two units. 1030 of them (the lists held 1024 large segments
  // before the block class shrank to 16 tiles) spread their units over the grid; capped below their count or their
  // units, each is taken by one block from a range scan. Every float sum must keep its bits either way.
  const SegmentClasses sizes = classes<float>();
  const auto block           = static_cast<std::int64_t>(sizes.block_max);
  REQUIRE(sizes.units(static_cast<std::uint64_t>(block) + 1) == 2);
  std::vector<std::int64_t> lengths;
  for (int i = 0; i < 1030; ++i)
  {
    lengths.push_back(block + 1 + (i % 5) * 997);
    lengths.push_back(i % 4); // and a few small ones between them
  }
  const Segments segments         = back_to_back(lengths);
  const auto values               = fold_test::random_values<float>(segments.items, 41, fold_test::Values::full_range);
  const std::vector<float> spread = check_sums<float, std::int64_t>(values, segments);
  for (const auto& [segments_cap, units_cap] : {std::pair{1000, 0}, std::pair{0, 2059}, std::pair{0, 3}})
  {
    std::vector<float> capped;
    {
      fold::detail::DispatchHooks hooks;
      hooks.max_listed_segments = segments_cap;
      hooks.max_split_units     = units_cap;
      fold_test::ForceDispatch force(hooks);
      capped = check_sums<float, std::int64_t>(values, segments, fold_test::forced);
    }
    INFO("at most " << segments_cap << " listed segments, " << units_cap << " listed units (0: the policy's)");
    for (std::size_t i = 0; i < spread.size(); ++i)
    {
      CHECK(fold_test::same_bits(spread[i], capped[i]));
    }
  }
}

//! The offsets `i * size` of fixed-size segments, computed (the block kernel copies them into shared memory one by
//! one instead of by `cp.async`).
struct FixedOffset
{
  std::int64_t size;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * size; }
};

TEST_CASE("Segmented reductions over more listed block segments than two a block of the grid", "[device][segmented]")
{
  // A block takes its first two listed block segments by index and the rest from a shared counter, each one's list
  // entry and offsets copied ahead into shared memory (cp.async from pointers, a load and a store otherwise). 3000
  // block segments (the grid holds at most 132 x 4 blocks on an H100 or H200) between small ones: sums against the
  // host and cub with both offset widths, Min and ArgMax, and the same sums through computed offsets with the bits
  // of the pointer offsets'.
  const SegmentClasses sizes = classes<float>();
  const auto warp            = static_cast<std::int64_t>(sizes.warp_max);
  fold_test::Random random{77};
  std::vector<std::int64_t> lengths;
  for (int i = 0; i < 3000; ++i)
  {
    lengths.push_back(random.between(warp + 1, 2 * warp));
    lengths.push_back(random.between(0, 40));
  }
  const Segments segments          = back_to_back(lengths);
  const auto values                = fold_test::random_values<float>(segments.items, 78, fold_test::Values::full_range);
  const std::vector<float> through = check_sums<float, int>(values, segments);
  CHECK(check_sums<float, std::int64_t>(values, segments) == through);
  check_sums<std::int32_t, int>(
      fold_test::random_values<std::int32_t>(segments.items, 79, fold_test::Values::full_range), segments);
  check_min_argmax(values, segments);

  const std::int64_t size = warp + 9, count = 3001;
  const auto fixed_values = fold_test::random_values<float>(count * size, 80, fold_test::Values::full_range);
  const std::vector<std::int64_t> offsets = fixed_offsets(count, size);
  fold_test::DeviceBuffer<float> d_in(fixed_values), d_pointers(count), d_computed(count);
  fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets);
  d_pointers.poison();
  d_computed.poison();
  const auto computed = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), FixedOffset{size});
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceSegmentedReduce::Sum(
            temp, bytes, d_in.get(), d_pointers.get(), count, d_offsets.get(), d_offsets.get() + 1);
      });
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes) {
        return fold::DeviceSegmentedReduce::Sum(
            temp, bytes, d_in.get(), d_computed.get(), count, computed, computed + 1);
      });
  const auto pointers = d_pointers.to_host(), by_computed = d_computed.to_host();
  for (std::int64_t i = 0; i < count; ++i)
  {
    require_fixed_segment_sum(by_computed, pointers, fixed_values, i, size);
  }
}

//! Stores each segment's result and counts the stores to it (a `thrust::tabulate_output_iterator`'s operation).
struct CountStores
{
  std::int32_t* values;
  unsigned* stores;
  __device__ void operator()(std::ptrdiff_t i, std::int32_t value) const
  {
    values[i] = value;
    atomicAdd(stores + i, 1u);
  }
};

TEST_CASE("Segmented reductions store each segment's result once, whichever kernel takes it", "[device][segmented]")
{
  // Each segment is reduced by one kernel: the warp kernel (small and short warp segments, and the long warp segments
  // past its list), or the block kernel (the listed warp, block and large segments; or, where the lists are capped
  // below their counts, the block and large segments of the recorded range). A segment taken twice would store twice
  // (an output iterator may count), one taken never would keep its poison. Block and large segments first, then
  // every class: each result stored once and equal to the host's, with the lists at the policy's caps and capped at 1
  // and 5 segments.
  const SegmentClasses sizes        = classes<std::int32_t>();
  const auto block                  = static_cast<std::int64_t>(sizes.block_max);
  const auto warp                   = static_cast<std::int64_t>(sizes.warp_max);
  std::vector<std::int64_t> lengths = {block, warp + 1, 3 * block + 7, block - 1, 0, warp + 2, 5, warp + 3};
  for (std::int64_t length : lengths_of_every_class(sizes, 91))
  {
    lengths.push_back(length);
  }
  const Segments segments = back_to_back(lengths);
  const auto n            = static_cast<std::int64_t>(lengths.size());
  const auto values       = fold_test::random_values<std::int32_t>(segments.items, 92, fold_test::Values::full_range);
  fold_test::DeviceBuffer<std::int32_t> d_in(values), d_out(n);
  fold_test::DeviceBuffer<std::int64_t> d_begins(segments.begins), d_ends(segments.ends);
  fold_test::DeviceBuffer<unsigned> d_stores(static_cast<std::size_t>(n)); // cleared before each call
  for (int cap : {0, 1, 5})
  {
    INFO("lists capped at " << cap << " segments (0: the policy's caps)");
    d_out.poison();
    REQUIRE(cudaMemset(d_stores.get(), 0, static_cast<std::size_t>(n) * sizeof(unsigned)) == cudaSuccess);
    const auto out = thrust::make_tabulate_output_iterator(CountStores{d_out.get(), d_stores.get()});
    fold::detail::DispatchHooks hooks;
    hooks.max_listed_segments = cap;
    {
      fold_test::ForceDispatch force(hooks);
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          {
            return fold::DeviceSegmentedReduce::Sum(
                temp, bytes, d_in.get(), out, n, d_begins.get(), d_ends.get(), 0, fold_test::forced);
          });
    }
    const auto got    = d_out.to_host();
    const auto stores = d_stores.to_host();
    Failures failures;
    for (std::int64_t i = 0; i < n; ++i)
    {
      const std::int32_t expected = wrapped_sum(values, segments.begins[i], segments.ends[i]);
      failures.check(stores[i] == 1 && got[i] == expected,
                     i,
                     [&](std::ostream& o) {
                       o << "length " << lengths[i] << ": stored " << stores[i] << " times, fold " << got[i]
                         << ", host " << expected;
                     });
    }
    failures.report();
  }
}

TEST_CASE("Batch invariance: a segment's sum has the same bits alone and in any batch", "[device][segmented]")
{
  // A segment at each class edge, alone, then among tiny segments, after many empty ones, between large ones,
  // shifted by one item (another alignment) and by three after a warp segment: its bits depend only on its items
  // and its length.
  const SegmentClasses sizes = classes<float>();
  const auto small = static_cast<std::int64_t>(sizes.small_max), warp = static_cast<std::int64_t>(sizes.warp_max),
             block = static_cast<std::int64_t>(sizes.block_max);
  fold_test::Random random{31};
  std::vector<std::int64_t> tiny(1000);
  for (std::int64_t& length : tiny)
  {
    length = random.between(0, 8);
  }
  const std::vector<std::int64_t> empty(5000, 0), large = {3 * block + 7, 2 * block + 1};
  for (std::int64_t length :
       std::vector<std::int64_t>{1, 3, 5, 17, 65, small, small + 1, warp, warp + 1, block, block + 1, 3 * block + 7})
  {
    INFO("target segment of " << length << " items");
    const auto seed = static_cast<std::uint64_t>(length) * 7 + 1;
    const auto target =
        fold_test::random_values<float>(static_cast<std::size_t>(length), seed, fold_test::Values::full_range);
    const float alone = sum_in_batch(target, {}, 0, {}, seed + 1);
    CHECK(fold_test::same_bits(sum_in_batch(target, tiny, 0, tiny, seed + 2), alone));
    CHECK(fold_test::same_bits(sum_in_batch(target, empty, 0, {}, seed + 3), alone));
    CHECK(fold_test::same_bits(sum_in_batch(target, large, 0, large, seed + 4), alone));
    CHECK(fold_test::same_bits(sum_in_batch(target, {}, 1, {}, seed + 5), alone));
    CHECK(fold_test::same_bits(sum_in_batch(target, {warp + 3}, 3, tiny, seed + 6), alone));
  }
}

TEST_CASE("Segmented Sum, Min and ArgMax over every length distribution, against the host and cub",
          "[device][segmented][distributions]")
{
  // The distributions of fold-segmented-bench at 2^20 items each: sums of float and int32 with 32- and 64-bit
  // offsets (float with unsigned 32-bit ones too), Min and ArgMax of float with 32-bit offsets over spread values and
  // over 16 distinct ones (ties: the first index wins, in fold and in cub).
  constexpr std::int64_t items = std::int64_t{1} << 20;
  std::uint64_t seed           = 1000;
  for (const Distribution& d : every_distribution(items))
  {
    INFO("distribution " << d.name);
    const Segments segments = back_to_back(lengths_of(d, items, ++seed));
    const auto floats       = fold_test::random_values<float>(segments.items, ++seed, fold_test::Values::full_range);
    const auto ints = fold_test::random_values<std::int32_t>(segments.items, ++seed, fold_test::Values::full_range);
    check_sums<float, int>(floats, segments);
    check_sums<float, std::int64_t>(floats, segments);
    check_sums<float, std::uint32_t>(floats, segments); // unsigned 32-bit offsets: one-word begins, as unsigned
    check_sums<std::int32_t, int>(ints, segments);
    check_sums<std::int32_t, std::int64_t>(ints, segments);
    check_min_argmax(floats, segments);
    check_min_argmax(fold_test::random_values<float>(segments.items, ++seed, fold_test::Values::few), segments);
  }
}

TEST_CASE("Segmented Sum, Min and ArgMax over unsorted and overlapping segments, against the host and cub",
          "[device][segmented][distributions]")
{
  // Some distributions' segments in a random order, some stretched over their neighbours, and more that overlap
  // them (begin and end offsets given apart, as cub allows).
  constexpr std::int64_t items = std::int64_t{1} << 20;
  std::uint64_t seed           = 2000;
  for (const Distribution& d : every_distribution(items))
  {
    if (d.name != "fixed-1" && d.name != "fixed-1000" && d.name != "uniform-1-512" && d.name != "lognormal-256-2" &&
        d.name != "powerlaw-0.7" && d.name != "bimodal-8-4096" && d.name != "onehuge-1-8" && d.name != "empty50-1-64")
    {
      continue;
    }
    INFO("distribution " << d.name << ", scrambled");
    const Segments segments = scrambled(back_to_back(lengths_of(d, items, ++seed)), ++seed);
    const auto floats       = fold_test::random_values<float>(segments.items, ++seed, fold_test::Values::full_range);
    const auto ints = fold_test::random_values<std::int32_t>(segments.items, ++seed, fold_test::Values::full_range);
    check_sums<float, int>(floats, segments);
    check_sums<float, std::int64_t>(floats, segments);
    check_sums<std::int32_t, int>(ints, segments);
    check_min_argmax(floats, segments);
    check_min_argmax(fold_test::random_values<float>(segments.items, ++seed, fold_test::Values::few), segments);
  }
}

TEST_CASE("Batch invariance: a segment's sum has the same bits in every length distribution", "[device][segmented]")
{
  // A segment of each class, alone and then in the middle of batches of the benchmark's distributions: its bits
  // depend only on its items and its length.
  const SegmentClasses sizes = classes<float>();
  const auto warp = static_cast<std::int64_t>(sizes.warp_max), block = static_cast<std::int64_t>(sizes.block_max);
  constexpr std::int64_t items = std::int64_t{1} << 19;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> batches;
  std::uint64_t seed = 3000;
  for (const Distribution& d : every_distribution(items))
  {
    if (d.name == "fixed-1" || d.name == "fixed-33" || d.name == "uniform-1-16" || d.name == "lognormal-256-2" ||
        d.name == "powerlaw-0.7" || d.name == "bimodal-8-4096" || d.name == "onehuge-1-8" || d.name == "empty90-1-64")
    {
      batches.emplace_back(d.name, lengths_of(d, items, ++seed));
    }
  }
  for (std::int64_t length : std::vector<std::int64_t>{1, 7, 100, 1000, warp + 1, 70000, block + 1, 3 * block + 7})
  {
    const auto target =
        fold_test::random_values<float>(static_cast<std::size_t>(length), ++seed, fold_test::Values::full_range);
    const float alone = sum_in_batch(target, {}, 0, {}, ++seed);
    for (const auto& [name, lengths] : batches)
    {
      INFO("target segment of " << length << " items among " << name);
      const auto middle = lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2);
      const float among = sum_in_batch(target, {lengths.begin(), middle}, 0, {middle, lengths.end()}, ++seed);
      CHECK(fold_test::same_bits(among, alone));
    }
  }
}

TEST_CASE("Segmented sums of fixed-size segments at every class edge", "[device][segmented]")
{
  const SegmentClasses sizes = classes<std::int32_t>();
  const auto small = static_cast<std::int64_t>(sizes.small_max), warp = static_cast<std::int64_t>(sizes.warp_max),
             block = static_cast<std::int64_t>(sizes.block_max);
  for (std::int64_t size : {std::int64_t{0},
                            std::int64_t{1},
                            std::int64_t{4},
                            std::int64_t{5},
                            small,
                            small + 1,
                            warp,
                            warp + 1,
                            block,
                            block + 1})
  {
    const std::int64_t count = std::max<std::int64_t>(3, std::min<std::int64_t>(5000, (1 << 22) / (size + 1)));
    const auto values = fold_test::random_values<std::int32_t>(count * size + 1, size, fold_test::Values::full_range);
    fold_test::DeviceBuffer<std::int32_t> d_in(values);
    fold_test::DeviceBuffer<std::int32_t> d_out(count);
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceSegmentedReduce::Sum(temp, bytes, d_in.get(), d_out.get(), count, size); });
    const auto out = d_out.to_host();
    for (std::int64_t i = 0; i < count; ++i)
    {
      INFO("size " << size << ", segment " << i);
      CHECK(out[i] == wrapped_sum(values, i * size, i * size + size));
    }
  }
}

TEST_CASE("Fixed-size segments have the bits of the same segments through offsets", "[device][segmented]")
{
  // The fixed-size overload takes kernels of its own (one up to warp_max items, one for block segments and the
  // units of large ones); each length must keep the tree the offsets path gives it. Float sums (the grouping shows
  // in the bits) and 2x2 matrix products (the order shows). 16, 28, 52, 64, 100, small - 4 and small items: whole
  // vector runs in lane groups of 4 lanes or more, 4 runs a thread, some with fewer valid runs than the group's lanes.
  const SegmentClasses sizes = classes<float>();
  const auto small = static_cast<std::int64_t>(sizes.small_max), warp = static_cast<std::int64_t>(sizes.warp_max),
             block = static_cast<std::int64_t>(sizes.block_max);
  for (std::int64_t size : {std::int64_t{1},
                            std::int64_t{2},
                            std::int64_t{3},
                            std::int64_t{5},
                            std::int64_t{8},
                            std::int64_t{13},
                            std::int64_t{16},
                            std::int64_t{33},
                            std::int64_t{28},
                            std::int64_t{52},
                            std::int64_t{64},
                            std::int64_t{100},
                            small - 4,
                            small - 1,
                            small,
                            small + 1,
                            std::int64_t{256},
                            std::int64_t{1000},
                            warp,
                            warp + 1,
                            3 * warp + 5,
                            block,
                            block + 1,
                            3 * block + 7})
  {
    INFO("size " << size);
    const std::int64_t count = std::max<std::int64_t>(7, std::min<std::int64_t>(20000, (1 << 21) / size)) + size % 5;
    const auto values        = fold_test::random_values<float>(
        static_cast<std::size_t>(count * size), static_cast<std::uint64_t>(size) + 5, fold_test::Values::full_range);
    const std::vector<std::int64_t> offsets = fixed_offsets(count, size);
    fold_test::DeviceBuffer<float> d_in(values), d_fixed(count), d_offsets_out(count);
    fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets);
    // 32-bit offsets too: the warp kernel's small segments then take one-word begins and lengths (`SegmentWords`),
    // code of their own.
    fold_test::DeviceBuffer<int> d_int_offsets(std::vector<int>(offsets.begin(), offsets.end()));
    d_fixed.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceSegmentedReduce::Sum(temp, bytes, d_in.get(), d_fixed.get(), count, size); });
    const auto fixed   = d_fixed.to_host();
    auto check_offsets = [&](const auto* begins, const char* words)
    {
      INFO(words << " offsets");
      d_offsets_out.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes) {
            return fold::DeviceSegmentedReduce::Sum(
                temp, bytes, d_in.get(), d_offsets_out.get(), count, begins, begins + 1);
          });
      const auto through_offsets = d_offsets_out.to_host();
      for (std::int64_t i = 0; i < count; ++i)
      {
        require_fixed_segment_sum(fixed, through_offsets, values, i, size);
      }
    };
    check_offsets(d_offsets.get(), "64-bit");
    check_offsets(d_int_offsets.get(), "32-bit");
  }
  for (std::int64_t size : {std::int64_t{3}, std::int64_t{9}, small, small + 7, warp, warp + 1, block + 1})
  {
    INFO("matrix products, size " << size);
    const std::int64_t count = size > warp ? 5 : 1000 + size % 3;
    const auto values        = fold_test::random_matrices(static_cast<std::size_t>(count * size), size + 40);
    const fold_test::Mat2 init{1, 2, 3, 5};
    fold_test::DeviceBuffer<fold_test::Mat2> d_in(values), d_out(count);
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        {
          return fold::DeviceSegmentedReduce::Reduce(
              temp, bytes, d_in.get(), d_out.get(), count, size, fold_test::MatMul{}, init);
        });
    const auto out = d_out.to_host();
    for (std::int64_t i = 0; i < count; ++i)
    {
      fold_test::Mat2 expected = init;
      for (std::int64_t j = 0; j < size; ++j)
      {
        expected = fold_test::MatMul{}(expected, values[static_cast<std::size_t>(i * size + j)]);
      }
      INFO("segment " << i);
      REQUIRE(out[i] == expected);
    }
  }
}

TEST_CASE("Half sums of small segments: lane runs of 8 items, through offsets, fixed-size and over an outer axis",
          "[device][segmented][axes]")
{
  // A small segment of 2-byte items is a group of lanes each folding a run of at most 8 items (twice the policy's
  // lane_items, so that a run holds 16 bytes), the runs reduced in lane order by a pairwise tree. The host builds
  // that tree in float from the half items, and every path must give its bits: segments through 64- and 32-bit
  // offsets (from an aligned and an unaligned first item), the fixed-size overload (each lane run one vector load, or
  // item by item from an unaligned start) and the columns of the transposed array reduced over axis 0 (the column
  // tree). Runs of 4 give other bits for most lengths here, so the test sees the run length, not only the sum. The
  // lengths give SegmentedFixedTileKernel's fold (paths 3, and 2 where a run is not a whole vector) every run length it
  // has an instantiation for: one run of 2 to 8 items, several of 5 to 8 (11 and 45: 6).
  const SegmentClasses sizes = classes<__half, float>();
  REQUIRE(sizes.lane_items == 8);
  REQUIRE(sizes.small_max == 256);
  const auto tree_sum = [&](const __half* items, std::int64_t length)
  {
    const std::int64_t width = sizes.lanes(static_cast<std::uint64_t>(length));
    const std::int64_t run   = (length + width - 1) / width;
    const std::int64_t valid = (length + run - 1) / run;
    std::vector<float> runs(static_cast<std::size_t>(valid));
    for (std::int64_t k = 0; k < valid; ++k)
    {
      float fold = static_cast<float>(fold_test::to_double(items[k * run]));
      for (std::int64_t j = k * run + 1; j < std::min(length, (k + 1) * run); ++j)
      {
        fold += static_cast<float>(fold_test::to_double(items[j]));
      }
      runs[static_cast<std::size_t>(k)] = fold;
    }
    for (std::int64_t offset = 1; offset < width; offset *= 2)
    {
      for (std::int64_t r = 0; r + offset < valid; r += 2 * offset)
      {
        runs[static_cast<std::size_t>(r)] += runs[static_cast<std::size_t>(r + offset)];
      }
    }
    return 0.0f + runs[0];
  };
  for (std::int64_t size :
       {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 31, 33, 45, 64, 100, 127, 128, 129, 200, 255, 256})
  {
    const std::int64_t count = 300 + size % 7;
    const auto values        = fold_test::random_values<__half>(static_cast<std::size_t>(count * size + 1),
                                                         static_cast<std::uint64_t>(size) + 900,
                                                         fold_test::Values::full_range);
    const std::vector<std::int64_t> offsets = fixed_offsets(count, size);
    // The transposed array: row r holds item r of every segment.
    std::vector<__half> transposed(static_cast<std::size_t>(count * size));
    for (std::int64_t i = 0; i < count; ++i)
    {
      for (std::int64_t j = 0; j < size; ++j)
      {
        transposed[static_cast<std::size_t>(j * count + i)] = values[static_cast<std::size_t>(i * size + j)];
      }
    }
    fold_test::DeviceBuffer<__half> d_in(values), d_transposed(transposed);
    fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets);
    fold_test::DeviceBuffer<int> d_int_offsets(std::vector<int>(offsets.begin(), offsets.end()));
    fold_test::DeviceBuffer<float> d_out(count);
    const std::vector<std::int64_t> shape = {size, count};
    const fold::Extents extents(shape.data(), 2);
    const int axis0[1] = {0};
    for (int path = 0; path < 7; ++path)
    {
      const int lead = path == 1 || path == 3 || path == 6 ? 1 : 0; // the segments start one item on
      d_out.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          {
            switch (path)
            {
            case 0:
            case 1:
              return fold::DeviceSegmentedReduce::Sum(
                  temp, bytes, d_in.get() + lead, d_out.get(), count, d_offsets.get(), d_offsets.get() + 1);
            case 2:
            case 3:
              return fold::DeviceSegmentedReduce::Sum(temp, bytes, d_in.get() + lead, d_out.get(), count, size);
            case 5:
            case 6:
              return fold::DeviceSegmentedReduce::Sum(
                  temp, bytes, d_in.get() + lead, d_out.get(), count, d_int_offsets.get(), d_int_offsets.get() + 1);
            default:
              return fold::DeviceReduceAxes::Sum(
                  temp, bytes, d_transposed.get(), d_out.get(), extents, fold::Axes(axis0, 1));
            }
          });
      const auto out     = d_out.to_host();
      std::int64_t wrong = 0;
      for (std::int64_t i = 0; i < count; ++i)
      {
        const float expected = tree_sum(values.data() + lead + i * size, size);
        wrong += fold_test::same_bits(out[static_cast<std::size_t>(i)], expected) ? 0 : 1;
      }
      INFO(size << " items, path " << path << " (offsets, offsets one item on, fixed-size, fixed-size one item on, "
                << "axis 0, 32-bit offsets, 32-bit offsets one item on)");
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("Fixed-size small segments from an unaligned start have the bits of an aligned one", "[device][segmented]")
{
  // A small segment's bits depend only on its items and length, never on where the input starts. The same
  // segments from 1 to 3 floats past a 16-byte boundary (and item counts that are mostly not multiples of four):
  // the bits of the aligned call, and within rounding of the exact sum. One-item segments take their own loop. Off
  // the boundary every length takes SegmentedFixedTileKernel, whose fold has an instantiation for each run length:
  // one run of 2, 3 and 4 items, several of 3 (5, 17, 33) and of 4 (7, 8, 97, 100, 127, 128; 127 and 128 hold 31
  // whole runs before the last, the deepest subtrees).
  for (std::int64_t size : {1, 2, 3, 4, 5, 7, 8, 17, 33, 97, 100, 127, 128})
  {
    const std::int64_t count = 50000 / size + 3;
    const auto values        = fold_test::random_values<float>(static_cast<std::size_t>(count * size + 3),
                                                        static_cast<std::uint64_t>(size) + 70,
                                                        fold_test::Values::full_range);
    fold_test::DeviceBuffer<float> d_aligned(count), d_shifted(count);
    std::vector<float> aligned;
    for (int lead = 0; lead < 4; ++lead)
    {
      INFO("size " << size << ", input " << lead << " floats past a 16-byte boundary");
      std::vector<float> shifted(values.size(), 7.0f);
      std::copy(values.begin(), values.begin() + count * size, shifted.begin() + lead);
      fold_test::DeviceBuffer<float> d_in(shifted);
      auto& d_out = lead == 0 ? d_aligned : d_shifted;
      d_out.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          { return fold::DeviceSegmentedReduce::Sum(temp, bytes, d_in.get() + lead, d_out.get(), count, size); });
      const auto out = d_out.to_host();
      if (lead == 0)
      {
        aligned = out;
      }
      for (std::int64_t i = 0; i < count; ++i)
      {
        require_fixed_segment_sum(out, aligned, values, i, size);
      }
    }
  }
}

TEST_CASE("Fixed-size small segments of narrow items and arg-reductions, each lane run one vector load or not",
          "[device][segmented]")
{
  // SegmentedFixedKernel reads a small segment's lane runs one vector load each where every run is lane_items
  // items, or 2 (2 items here, 4, 8, 16, 32, 100 and 128), and the input is aligned to a run. Otherwise (7 and 12
  // items, or the input off a run's alignment) SegmentedFixedTileKernel stages tiles of whole segments with 16-byte
  // vector loads, and the items of a partial first and last vector one at a time: the input 0-15 items past the
  // alignment, and each tile starting elsewhere in its 16 bytes again. Exact results either way: int8 sums in int32,
  // uint64 sums (two items a vector), half sums of small integers (exact in float and in half), and ArgMax over floats
  // with ties, whose index is counted from the segment's first item, against the host.
  for (std::int64_t size : {2, 4, 7, 8, 12, 16, 32, 100, 128})
  {
    const std::int64_t count = 30000 / size + 3;
    const auto n             = static_cast<std::size_t>(count * size);
    const auto bytes         = fold_test::random_values<std::int8_t>(n + 15, 300 + size, fold_test::Values::full_range);
    const auto longs  = fold_test::random_values<std::uint64_t>(n + 15, 600 + size, fold_test::Values::full_range);
    const auto halves = fold_test::random_values<__half>(n + 15, 400 + size, fold_test::Values::small);
    const auto floats = fold_test::random_values<float>(n + 15, 500 + size, fold_test::Values::few);
    fold_test::DeviceBuffer<std::int8_t> d_bytes(bytes);
    fold_test::DeviceBuffer<std::uint64_t> d_longs(longs);
    fold_test::DeviceBuffer<__half> d_halves(halves);
    fold_test::DeviceBuffer<float> d_floats(floats);
    fold_test::DeviceBuffer<std::int32_t> d_byte_sums(count);
    fold_test::DeviceBuffer<std::uint64_t> d_long_sums(count);
    fold_test::DeviceBuffer<__half> d_half_sums(count);
    fold_test::DeviceBuffer<fold::KeyValuePair<int, float>> d_arg(count);
    for (int lead : {0, 1, 2, 3, 5, 9, 15})
    {
      INFO("size " << size << ", input " << lead << " items past the alignment");
      d_byte_sums.poison();
      d_long_sums.poison();
      d_half_sums.poison();
      d_arg.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed) {
            return fold::DeviceSegmentedReduce::Sum(
                temp, bytes_needed, d_bytes.get() + lead, d_byte_sums.get(), count, size);
          });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed) {
            return fold::DeviceSegmentedReduce::Sum(
                temp, bytes_needed, d_longs.get() + lead, d_long_sums.get(), count, size);
          });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed)
          {
            return fold::DeviceSegmentedReduce::Sum(
                temp, bytes_needed, d_halves.get() + lead, d_half_sums.get(), count, size);
          });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed) {
            return fold::DeviceSegmentedReduce::ArgMax(
                temp, bytes_needed, d_floats.get() + lead, d_arg.get(), count, size);
          });
      const auto byte_sums = d_byte_sums.to_host();
      const auto long_sums = d_long_sums.to_host();
      const auto half_sums = d_half_sums.to_host();
      const auto arg       = d_arg.to_host();
      for (std::int64_t i = 0; i < count; ++i)
      {
        std::int32_t byte_sum   = 0;
        std::uint64_t long_sum  = 0;
        double half_sum         = 0;
        int best                = 0;
        const std::size_t first = static_cast<std::size_t>(lead + i * size);
        for (std::int64_t j = 0; j < size; ++j)
        {
          byte_sum += bytes[first + static_cast<std::size_t>(j)];
          long_sum += longs[first + static_cast<std::size_t>(j)];
          half_sum += fold_test::to_double(halves[first + static_cast<std::size_t>(j)]);
          if (floats[first + static_cast<std::size_t>(j)] > floats[first + static_cast<std::size_t>(best)])
          {
            best = static_cast<int>(j);
          }
        }
        INFO("segment " << i);
        REQUIRE(byte_sums[static_cast<std::size_t>(i)] == byte_sum);
        REQUIRE(long_sums[static_cast<std::size_t>(i)] == long_sum);
        REQUIRE(fold_test::to_double(half_sums[static_cast<std::size_t>(i)]) == half_sum);
        REQUIRE(arg[static_cast<std::size_t>(i)].key == best);
        REQUIRE(fold_test::same_bits(arg[static_cast<std::size_t>(i)].value,
                                     floats[first + static_cast<std::size_t>(best)]));
      }
    }
  }
}

TEST_CASE("Small segments of 1-, 2- and 4-byte items through offsets: whole and partial lane runs, aligned or not, "
          "against the host",
          "[device][segmented]")
{
  // Small segments of 1-, 2- and 4-byte items through offsets, in lane runs of 4, 8 and 4 items. A warp whose wider
  // lane groups all have whole runs from an aligned first item loads each run as one vector; any other warp item by
  // item. Each size below runs with the segments at the input's alignment (vectors where the length gives whole runs,
  // 8-256 items), one item past it (item by item), and mixed with segments one item shorter in the same call (item by
  // item). Exact results, against the host: int8 sums in int32, int32 sums of 1..4, and ArgMin over int8, half and
  // float of 16 distinct values (ties: the first index wins).
  for (std::int64_t size : {4, 8, 12, 16, 24, 32, 64, 96, 120, 128, 256})
  {
    const std::int64_t count = 40000 / size + 5;
    const auto n             = static_cast<std::size_t>(count * size + 1);
    const auto bytes         = fold_test::random_values<std::int8_t>(n, 700 + size, fold_test::Values::full_range);
    const auto tied_bytes    = fold_test::random_values<std::int8_t>(n, 800 + size, fold_test::Values::few);
    const auto halves        = fold_test::random_values<__half>(n, 900 + size, fold_test::Values::few);
    const auto ints          = fold_test::random_values<std::int32_t>(n, 1000 + size, fold_test::Values::small);
    const auto floats        = fold_test::random_values<float>(n, 1100 + size, fold_test::Values::few);
    fold_test::DeviceBuffer<std::int8_t> d_bytes(bytes), d_tied_bytes(tied_bytes);
    fold_test::DeviceBuffer<__half> d_halves(halves);
    fold_test::DeviceBuffer<std::int32_t> d_ints(ints);
    fold_test::DeviceBuffer<float> d_floats(floats);
    fold_test::DeviceBuffer<std::int32_t> d_sums(count), d_int_sums(count);
    fold_test::DeviceBuffer<fold::KeyValuePair<int, std::int8_t>> d_byte_arg(count);
    fold_test::DeviceBuffer<fold::KeyValuePair<int, __half>> d_half_arg(count);
    fold_test::DeviceBuffer<fold::KeyValuePair<int, float>> d_float_arg(count);
    for (int layout = 0; layout < 3; ++layout)
    {
      INFO("size " << size << ", layout " << layout << " (aligned, one item past, every other segment shorter)");
      const std::int64_t lead = layout == 1 ? 1 : 0;
      std::vector<std::int64_t> offsets(static_cast<std::size_t>(count) + 1, 0);
      for (std::int64_t i = 0; i < count; ++i)
      {
        const std::int64_t length                = layout == 2 && i % 2 == 1 ? size - 1 : size;
        offsets[static_cast<std::size_t>(i + 1)] = offsets[static_cast<std::size_t>(i)] + length;
      }
      fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets);
      const std::int64_t* b = d_offsets.get();
      const std::int64_t* e = d_offsets.get() + 1;
      d_sums.poison();
      d_byte_arg.poison();
      d_half_arg.poison();
      d_int_sums.poison();
      d_float_arg.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed)
          {
            return fold::DeviceSegmentedReduce::Reduce(
                temp, bytes_needed, d_bytes.get() + lead, d_sums.get(), count, b, e, fold::Sum{}, std::int32_t{0});
          });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed)
          {
            return fold::DeviceSegmentedReduce::ArgMin(
                temp, bytes_needed, d_tied_bytes.get() + lead, d_byte_arg.get(), count, b, e);
          });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed)
          {
            return fold::DeviceSegmentedReduce::ArgMin(
                temp, bytes_needed, d_halves.get() + lead, d_half_arg.get(), count, b, e);
          });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed) {
            return fold::DeviceSegmentedReduce::Sum(
                temp, bytes_needed, d_ints.get() + lead, d_int_sums.get(), count, b, e);
          });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes_needed)
          {
            return fold::DeviceSegmentedReduce::ArgMin(
                temp, bytes_needed, d_floats.get() + lead, d_float_arg.get(), count, b, e);
          });
      const auto sums      = d_sums.to_host();
      const auto byte_arg  = d_byte_arg.to_host();
      const auto half_arg  = d_half_arg.to_host();
      const auto int_sums  = d_int_sums.to_host();
      const auto float_arg = d_float_arg.to_host();
      std::int64_t wrong   = 0;
      for (std::int64_t i = 0; i < count; ++i)
      {
        const auto first = static_cast<std::size_t>(lead + offsets[static_cast<std::size_t>(i)]);
        const auto length =
            static_cast<std::size_t>(offsets[static_cast<std::size_t>(i + 1)] - offsets[static_cast<std::size_t>(i)]);
        std::int32_t sum = 0, int_sum = 0;
        std::size_t byte_best = 0, half_best = 0, float_best = 0;
        for (std::size_t j = 0; j < length; ++j)
        {
          sum += bytes[first + j];
          int_sum += ints[first + j];
          float_best = floats[first + j] < floats[first + float_best] ? j : float_best;
          byte_best  = tied_bytes[first + j] < tied_bytes[first + byte_best] ? j : byte_best;
          half_best =
              fold_test::to_double(halves[first + j]) < fold_test::to_double(halves[first + half_best]) ? j : half_best;
        }
        const auto at = static_cast<std::size_t>(i);
        wrong += sums[at] == sum ? 0 : 1;
        wrong += byte_arg[at].key == static_cast<int>(byte_best) && byte_arg[at].value == tied_bytes[first + byte_best]
                     ? 0
                     : 1;
        wrong += half_arg[at].key == static_cast<int>(half_best) &&
                         fold_test::same_bits(half_arg[at].value, halves[first + half_best])
                     ? 0
                     : 1;
        wrong += int_sums[at] == int_sum ? 0 : 1;
        wrong += float_arg[at].key == static_cast<int>(float_best) &&
                         fold_test::same_bits(float_arg[at].value, floats[first + float_best])
                     ? 0
                     : 1;
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("Segmented sums over several steps of the warp kernel's grid, one-lane groups in pairs and mixed",
          "[device][segmented]")
{
  // SegmentedWarpKernel folds two groups of 32 one-lane segments (at most lane_items items each) in one step, the
  // second `stride` groups after the first; a step covers at most 32 blocks per SM of 8 warps, so 3 million segments
  // make several. A third of the groups hold one longer segment, which sends the step through the general path. One
  // in 32 of those is a long warp or a block segment: with more segments than the block kernel has threads, the warp
  // kernel lists them, and the block kernel takes them from its lists.
  const SegmentClasses sizes = classes<std::int32_t>();
  fold_test::Random random{41};
  std::vector<std::int64_t> lengths(3000017);
  for (std::size_t g = 0; g * 32 < lengths.size(); ++g)
  {
    const std::size_t last = std::min(lengths.size(), g * 32 + 32);
    for (std::size_t i = g * 32; i < last; ++i)
    {
      lengths[i] = random.between(0, sizes.lane_items);
    }
    if (random.between(0, 2) == 0)
    {
      lengths[g * 32 + static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(last - g * 32) - 1))] =
          random.between(0, 31) == 0
              ? random.between(static_cast<std::int64_t>(sizes.warp_max) / 4,
                               3 * static_cast<std::int64_t>(sizes.warp_max))
              : random.between(sizes.lane_items + 1, 2 * static_cast<std::int64_t>(sizes.small_max));
    }
  }
  const Segments segments = back_to_back(lengths);
  const auto values       = fold_test::random_values<std::int32_t>(segments.items, 42, fold_test::Values::full_range);
  check_sums<std::int32_t, int>(values, segments);
}

TEST_CASE("Fixed-size small segments over more tiles than the grid's blocks", "[device][segmented]")
{
  // SegmentedFixedTileKernel runs at most 32 blocks per SM, each over every such block's tile in turn: sums staging
  // each tile into one buffer, ArgMax (8-byte pairs) the next tile into a second buffer while it folds this one. Two
  // and a half tiles per block and a partial last one make every block fold two tiles or three. 13 items a segment
  // make tiles that start off a 16-byte boundary (partial first and last vectors in every tile), and an input one
  // float past a boundary does that at every length. Sums: the bits of the same segments through computed offsets,
  // and within rounding of the exact sum; ArgMax: the host's first maximum.
  int sms = 0;
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  const std::int64_t blocks = 32 * static_cast<std::int64_t>(sms);
  for (std::int64_t size : {1, 13, 33})
  {
    const std::int64_t per_tile = fold::detail::fixed_tile_segments<float>(static_cast<std::uint64_t>(size));
    const std::int64_t count    = (2 * blocks + blocks / 2) * per_tile + per_tile / 3;
    const auto values           = fold_test::random_values<float>(static_cast<std::size_t>(count * size + 1),
                                                        static_cast<std::uint64_t>(size) + 90,
                                                        fold_test::Values::full_range);
    fold_test::DeviceBuffer<float> d_in(values), d_fixed(count), d_offsets_out(count);
    fold_test::DeviceBuffer<fold::KeyValuePair<int, float>> d_arg(count);
    const auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), FixedOffset{size});
    for (int lead = 0; lead < 2; ++lead)
    {
      INFO("size " << size << ", " << count << " segments, input " << lead << " floats past a 16-byte boundary");
      d_fixed.poison();
      d_offsets_out.poison();
      d_arg.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          { return fold::DeviceSegmentedReduce::Sum(temp, bytes, d_in.get() + lead, d_fixed.get(), count, size); });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          { return fold::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in.get() + lead, d_arg.get(), count, size); });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          {
            return fold::DeviceSegmentedReduce::Sum(
                temp, bytes, d_in.get() + lead, d_offsets_out.get(), count, offsets, offsets + 1);
          });
      const auto fixed = d_fixed.to_host(), through_offsets = d_offsets_out.to_host();
      const auto arg = d_arg.to_host();
      const std::vector<float> shifted(values.begin() + lead, values.end());
      // Millions of segments: counted here, and the first wrong one checked in full.
      std::int64_t wrong = 0, first_wrong = 0, wrong_args = 0, first_wrong_arg = 0;
      for (std::int64_t i = 0; i < count; ++i)
      {
        const float* items = shifted.data() + i * size;
        int best           = 0;
        for (std::int64_t j = 1; j < size; ++j)
        {
          best = items[j] > items[best] ? static_cast<int>(j) : best;
        }
        const bool right = fold_test::same_bits(fixed[i], through_offsets[i]) &&
                           within_rounding(fixed[i], exact_fixed_sum(shifted, i, size), size);
        if (!right && wrong++ == 0)
        {
          first_wrong = i;
        }
        if ((arg[i].key != best || !fold_test::same_bits(arg[i].value, items[best])) && wrong_args++ == 0)
        {
          first_wrong_arg = i;
        }
      }
      if (wrong != 0)
      {
        require_fixed_segment_sum(fixed, through_offsets, shifted, first_wrong, size);
      }
      REQUIRE(wrong == 0);
      INFO("first wrong ArgMax: segment " << first_wrong_arg << ", key " << arg[first_wrong_arg].key);
      REQUIRE(wrong_args == 0);
    }
  }
}

TEST_CASE("Fixed-size ArgMax and Min over 33-127 items with ties: the first extreme wins", "[device][segmented]")
{
  // SegmentedFixedTileKernel folds each segment of 33 items and more whose runs are not whole vectors along the lane
  // groups' tree in one thread (two threads a segment, each a subtree under the root, were measured and not kept:
  // docs/performance.md). 16 distinct values make ties within runs and across subtrees: ArgMax must return the first
  // maximum, Min its value; every odd length from 33 to 127, and an input one float past the alignment.
  for (std::int64_t size = 33; size < 128; size += 2)
  {
    const std::int64_t count = 3000 + size;
    const auto values        = fold_test::random_values<float>(
        static_cast<std::size_t>(count * size + 1), static_cast<std::uint64_t>(size) + 300, fold_test::Values::few);
    fold_test::DeviceBuffer<float> d_in(values), d_min(count);
    fold_test::DeviceBuffer<fold::KeyValuePair<int, float>> d_arg(count);
    for (int lead = 0; lead < 2; ++lead)
    {
      INFO("size " << size << ", input " << lead << " floats past a 16-byte boundary");
      d_min.poison();
      d_arg.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          { return fold::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in.get() + lead, d_arg.get(), count, size); });
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          { return fold::DeviceSegmentedReduce::Min(temp, bytes, d_in.get() + lead, d_min.get(), count, size); });
      const auto arg = d_arg.to_host();
      const auto min = d_min.to_host();
      for (std::int64_t i = 0; i < count; ++i)
      {
        const float* items = values.data() + lead + i * size;
        int best = 0, least = 0;
        for (std::int64_t j = 1; j < size; ++j)
        {
          best  = items[j] > items[best] ? static_cast<int>(j) : best;
          least = items[j] < items[least] ? static_cast<int>(j) : least;
        }
        INFO("segment " << i);
        REQUIRE(arg[i].key == best);
        REQUIRE(fold_test::same_bits(arg[i].value, items[best]));
        REQUIRE(fold_test::same_bits(min[i], items[least]));
      }
    }
  }
}

TEST_CASE("Fixed-size large segments outnumbering the blocks that fold their partials", "[device][segmented]")
{
  // SegmentedFixedPartialsKernel runs at most 32 blocks per SM, so 32 x SMs + 100 large segments make some of its
  // blocks fold two (reusing their shared storage). The items are a counting sequence: nothing is stored, and each
  // sum has a closed form (mod 2^32, as the device's unsigned sum wraps).
  const thrust::counting_iterator<std::uint32_t> items(0);
  const SegmentClasses sizes =
      SegmentClasses::make(fold::detail::segmented_policy(),
                           fold::detail::reduce_tile_shape<thrust::counting_iterator<std::uint32_t>, std::uint32_t>(
                               fold_test::current_ptx_version()));
  int sms = 0;
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  const std::int64_t count = 32 * static_cast<std::int64_t>(sms) + 100;
  const auto size          = static_cast<std::int64_t>(sizes.block_max) + 1;
  REQUIRE(count * size < (std::int64_t{1} << 32)); // the items themselves do not wrap
  fold_test::DeviceBuffer<std::uint32_t> d_out(count);
  d_out.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceSegmentedReduce::Sum(temp, bytes, items, d_out.get(), count, size); });
  const auto out = d_out.to_host();
  Failures failures;
  for (std::int64_t i = 0; i < count; ++i)
  {
    const auto first    = static_cast<std::uint64_t>(i * size);
    const auto last     = first + static_cast<std::uint64_t>(size) - 1;
    const auto expected = static_cast<std::uint32_t>((first + last) * static_cast<std::uint64_t>(size) / 2);
    failures.check(out[static_cast<std::size_t>(i)] == expected,
                   i,
                   [&](std::ostream& o) { o << "fold " << out[static_cast<std::size_t>(i)] << ", host " << expected; });
  }
  failures.report();
}

//! 2x2 matrix products (not commutative) over `segments` of random matrices through offsets, the lists capped at
//! `cap` segments (0: the policy's cap), each checked against the host's product in index order.
void check_matrix_products_in_order(const Segments& segments, std::uint64_t seed, int cap)
{
  const auto values = fold_test::random_matrices(segments.items, seed);
  const auto n      = static_cast<std::int64_t>(segments.begins.size());
  const fold_test::Mat2 init{1, 2, 3, 5};
  fold_test::DeviceBuffer<fold_test::Mat2> d_in(values), d_out(n);
  fold_test::DeviceBuffer<std::int64_t> d_begins(segments.begins), d_ends(segments.ends);
  fold::detail::DispatchHooks hooks;
  hooks.max_listed_segments = cap;
  {
    fold_test::ForceDispatch force(hooks);
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        {
          return fold::DeviceSegmentedReduce::Reduce(temp,
                                                     bytes,
                                                     d_in.get(),
                                                     d_out.get(),
                                                     n,
                                                     d_begins.get(),
                                                     d_ends.get(),
                                                     fold_test::MatMul{},
                                                     init,
                                                     0,
                                                     fold_test::forced);
        });
  }
  const auto out = d_out.to_host();
  for (std::int64_t i = 0; i < n; ++i)
  {
    INFO("segment " << i << " of length " << segments.ends[i] - segments.begins[i] << ", cap " << cap);
    fold_test::Mat2 expected = init;
    for (std::int64_t j = segments.begins[i]; j < segments.ends[i]; ++j)
    {
      expected = fold_test::MatMul{}(expected, values[j]);
    }
    CHECK(out[i] == expected);
  }
}

TEST_CASE("Segmented Reduce keeps index order within each segment", "[device][segmented][order]")
{
  // Every class must fold its items in order, whether its segments are listed or taken by range.
  const Segments segments = back_to_back(lengths_of_every_class(classes<fold_test::Mat2>(), 21));
  for (int cap : {0, 1})
  {
    check_matrix_products_in_order(segments, 22, cap);
  }
}

TEST_CASE("Segmented Reduce keeps index order where every segment of a group is a lane's own",
          "[device][segmented][order]")
{
  // Segments of at most two lane runs (0 to 2 x lane_items items): where all 32 of two groups are that short,
  // SegmentedWarpKernel gives each its own lane, its second run merged after its first. A longer small segment every
  // 97 sends about a third of the groups through the lane-group layout instead, so both are checked in one call.
  const SegmentClasses sizes = classes<fold_test::Mat2>();
  fold_test::Random random{23};
  std::vector<std::int64_t> lengths(20011);
  for (std::size_t i = 0; i < lengths.size(); ++i)
  {
    lengths[i] = i % 97 == 0 ? random.between(2 * sizes.lane_items + 1, static_cast<std::int64_t>(sizes.small_max))
                             : random.between(0, 2 * sizes.lane_items);
  }
  check_matrix_products_in_order(back_to_back(lengths), 24, 0);
}

TEST_CASE("A segmented call through offsets captures as three kernels and replays", "[device][segmented][graph]")
{
  // The state the kernels share is cleared by a kernel (GridClearKernel), not a memset, so that the call's
  // launches chain through programmatic dependent launch; in a graph each replay clears it again. Every class, so
  // that replays go through every list; results poisoned before each replay and checked against the host exactly.
  const SegmentClasses sizes = classes<std::uint32_t>();
  const Segments segments    = back_to_back(lengths_of_every_class(sizes, 71));
  const auto values          = fold_test::random_values<std::uint32_t>(
      static_cast<std::size_t>(segments.items), 72, fold_test::Values::full_range);
  const auto n = static_cast<std::int64_t>(segments.begins.size());
  std::vector<std::uint32_t> expected(segments.begins.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
  {
    expected[i] = wrapped_sum(values, segments.begins[i], segments.ends[i]);
  }
  fold_test::DeviceBuffer<std::uint32_t> d_in(values), d_out(expected.size());
  fold_test::DeviceBuffer<std::int64_t> d_begins(segments.begins), d_ends(segments.ends);
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::size_t bytes = 0;
  CUDA_REQUIRE(fold::DeviceSegmentedReduce::Sum(
      nullptr, bytes, d_in.get(), d_out.get(), n, d_begins.get(), d_ends.get(), stream));
  fold_test::DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison(); // the state must be cleared by the call itself

  cudaGraph_t graph = nullptr;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const cudaError_t status = fold::DeviceSegmentedReduce::Sum(
      d_temp.get(), bytes, d_in.get(), d_out.get(), n, d_begins.get(), d_ends.get(), stream);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  CUDA_REQUIRE(status);
  const auto types = fold_test::graph_node_types(graph);
  CHECK(types.size() == 3);
  CHECK(std::count(types.begin(), types.end(), cudaGraphNodeTypeKernel) == 3);
  cudaGraphExec_t exec = nullptr;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay)
  {
    d_out.poison();
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    const auto out = d_out.to_host();
    Failures failures;
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
      failures.check(out[i] == expected[i],
                     static_cast<std::int64_t>(i),
                     [&](std::ostream& text)
                     { text << "replay " << replay << ": " << out[i] << ", expected " << expected[i]; });
    }
    failures.report();
  }
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("Segmented calls through offsets reuse one temporary storage back to back", "[device][segmented][state]")
{
  // Off a graph the warp kernel's block 0 clears the state the kernels share, under the call's id, and the other
  // warps wait for that id before their first atomic (`GridClear`). Four calls on one stream, no wait between
  // them, all on storage that starts poisoned: each finds the state its predecessor left (counters, lists, the
  // previous id) and must clear it itself. The mixes differ, so stale counters would list the wrong segments; every
  // result is poisoned first and checked against the host exactly.
  const SegmentClasses sizes = classes<std::uint32_t>();
  std::vector<Segments> calls;
  calls.push_back(back_to_back(lengths_of_every_class(sizes, 81)));
  calls.push_back(back_to_back(std::vector<std::int64_t>(3000, static_cast<std::int64_t>(sizes.block_max))));
  calls.push_back(back_to_back(lengths_of_every_class(sizes, 82)));
  calls.push_back(back_to_back(std::vector<std::int64_t>(4, 3 * static_cast<std::int64_t>(sizes.block_max) + 5)));
  std::int64_t items = 0, most = 0;
  for (const Segments& segments : calls)
  {
    items = std::max(items, segments.items);
    most  = std::max(most, static_cast<std::int64_t>(segments.begins.size()));
  }
  const auto values =
      fold_test::random_values<std::uint32_t>(static_cast<std::size_t>(items), 83, fold_test::Values::full_range);
  fold_test::DeviceBuffer<std::uint32_t> d_in(values);
  std::deque<fold_test::DeviceBuffer<std::uint32_t>> d_out; // a deque: the buffers are built in place, never moved
  std::deque<fold_test::DeviceBuffer<std::int64_t>> d_begins, d_ends;
  std::size_t bytes = 0;
  for (const Segments& segments : calls)
  {
    d_out.emplace_back(segments.begins.size());
    d_out.back().poison();
    d_begins.emplace_back(segments.begins);
    d_ends.emplace_back(segments.ends);
  }
  CUDA_REQUIRE(fold::DeviceSegmentedReduce::Sum(
      nullptr, bytes, d_in.get(), d_out.front().get(), most, d_begins.front().get(), d_ends.front().get()));
  fold_test::DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison();
  for (int round = 0; round < 2; ++round)
  {
    for (std::size_t c = 0; c < calls.size(); ++c)
    {
      std::size_t need = 0;
      const auto n     = static_cast<std::int64_t>(calls[c].begins.size());
      CUDA_REQUIRE(fold::DeviceSegmentedReduce::Sum(
          nullptr, need, d_in.get(), d_out[c].get(), n, d_begins[c].get(), d_ends[c].get()));
      REQUIRE(need <= bytes);
      CUDA_REQUIRE(fold::DeviceSegmentedReduce::Sum(
          d_temp.get(), need, d_in.get(), d_out[c].get(), n, d_begins[c].get(), d_ends[c].get()));
    }
    CUDA_REQUIRE(cudaDeviceSynchronize());
    for (std::size_t c = 0; c < calls.size(); ++c)
    {
      const auto out = d_out[c].to_host();
      Failures failures;
      for (std::size_t i = 0; i < out.size(); ++i)
      {
        const std::uint32_t expected = wrapped_sum(values, calls[c].begins[i], calls[c].ends[i]);
        failures.check(out[i] == expected,
                       static_cast<std::int64_t>(i),
                       [&](std::ostream& text)
                       { text << "round " << round << ", call " << c << ": " << out[i] << ", expected " << expected; });
      }
      failures.report();
      d_out[c].poison();
    }
  }
}

TEST_CASE("Segmented reductions: zero segments and bad arguments", "[device][segmented][errors]")
{
  fold_test::DeviceBuffer<float> d_in(16), d_out(4);
  fold_test::DeviceBuffer<int> d_offsets(std::vector<int>{0, 4, 8, 12, 16});
  std::size_t bytes = 0;
  CHECK(fold::DeviceSegmentedReduce::Sum(
            nullptr, bytes, d_in.get(), d_out.get(), 0, d_offsets.get(), d_offsets.get() + 1) == cudaSuccess);
  CHECK(bytes > 0); // written even with no segments
  fold_test::DeviceBuffer<unsigned char> temp(bytes);
  CHECK(fold::DeviceSegmentedReduce::Sum(
            temp.get(), bytes, d_in.get(), d_out.get(), 0, d_offsets.get(), d_offsets.get() + 1) == cudaSuccess);

  CHECK(fold::DeviceSegmentedReduce::Sum(
            nullptr, bytes, d_in.get(), d_out.get(), -1, d_offsets.get(), d_offsets.get() + 1) ==
        cudaErrorInvalidValue);
  CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, bytes, d_in.get(), d_out.get(), 4, -5) == cudaErrorInvalidValue);

  bytes = 0;
  CUDA_REQUIRE(fold::DeviceSegmentedReduce::Sum(
      nullptr, bytes, d_in.get(), d_out.get(), 4, d_offsets.get(), d_offsets.get() + 1));
  fold_test::DeviceBuffer<unsigned char> storage(bytes);
  d_out.poison();
  const auto before = d_out.to_host();
  float* null_float = nullptr;
  int* null_offsets = nullptr;
  CHECK(fold::DeviceSegmentedReduce::Sum(
            storage.get(), bytes, null_float, d_out.get(), 4, d_offsets.get(), d_offsets.get() + 1) ==
        cudaErrorInvalidValue);
  CHECK(fold::DeviceSegmentedReduce::Sum(
            storage.get(), bytes, d_in.get(), null_float, 4, d_offsets.get(), d_offsets.get() + 1) ==
        cudaErrorInvalidValue);
  CHECK(fold::DeviceSegmentedReduce::Sum(
            storage.get(), bytes, d_in.get(), d_out.get(), 4, null_offsets, d_offsets.get() + 1) ==
        cudaErrorInvalidValue);
  std::size_t short_bytes = bytes - 1;
  CHECK(fold::DeviceSegmentedReduce::Sum(
            storage.get(), short_bytes, d_in.get(), d_out.get(), 4, d_offsets.get(), d_offsets.get() + 1) ==
        cudaErrorInvalidValue);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto after = d_out.to_host();
  for (std::size_t i = 0; i < before.size(); ++i)
  {
    CHECK(fold_test::same_bits(before[i], after[i])); // nothing was launched
  }
}
