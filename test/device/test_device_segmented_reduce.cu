// SPDX-License-Identifier: Apache-2.0
// DeviceSegmentedReduce::Sum and Reduce: every size class (empty, lane groups of each width, warp, block, large
// spread over the grid and large taken by one block), ragged, overlapping and out-of-order segments, the
// fixed-size overloads, against a host reference and against cub::DeviceSegmentedReduce; results that do not
// depend on how a segment was scheduled; the argument checks.
#include <fold/device/device_segmented_reduce.cuh>

#include "device_test_util.cuh"
#include "ops_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstdint>
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

//! A bound on the error of fold's (or cub's) float sum of a segment: each thread of a warp takes at most
//! length / 32 items, and the trees above are shallow.
double segment_bound(std::int64_t length, double magnitude, double unit)
{
  return (static_cast<double>(length) / 32 + 2 * std::log2(static_cast<double>(length) + 2) + 64) * unit * magnitude;
}

//! fold's and cub's segmented sums of `segments` over `values`, checked against the host; with `OffsetT`
//! offsets. Returns fold's results.
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
  for (std::int64_t i = 0; i < n; ++i)
  {
    double magnitude  = 0;
    const double sum  = host_sum(values, segments.begins[i], segments.ends[i], magnitude);
    const auto length = std::max<std::int64_t>(segments.ends[i] - segments.begins[i], 0);
    INFO("segment " << i << " [" << segments.begins[i] << ", " << segments.ends[i] << ")");
    if constexpr (std::is_integral_v<T>)
    {
      std::uint64_t wrapped = 0; // the device's sum wraps around
      for (std::int64_t j = segments.begins[i]; j < segments.ends[i]; ++j)
      {
        wrapped += static_cast<std::uint64_t>(values[j]);
      }
      CHECK(out[i] == theirs[i]);
      CHECK(out[i] == static_cast<T>(wrapped));
    }
    else
    {
      const double bound = segment_bound(length, magnitude, fold_test::unit_roundoff<T>());
      CHECK(std::fabs(static_cast<double>(out[i]) - sum) <= bound);
      CHECK(std::fabs(static_cast<double>(theirs[i]) - sum) <= bound);
    }
  }
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
      std::uint32_t expected = 0; // wraps as the device's int sum does
      for (std::int64_t j = 0; j < size; ++j)
      {
        expected += static_cast<std::uint32_t>(values[i * size + j]);
      }
      INFO("size " << size << ", segment " << i);
      CHECK(out[i] == static_cast<std::int32_t>(expected));
    }
  }
}

TEST_CASE("Segmented Reduce keeps index order within each segment", "[device][segmented][order]")
{
  // 2x2 matrix products: not commutative, so every class must fold its items in order.
  const SegmentClasses sizes = classes<fold_test::Mat2>();
  const Segments segments    = back_to_back(lengths_of_every_class(sizes, 21));
  const auto values          = fold_test::random_matrices(segments.items, 22);
  const auto n               = static_cast<std::int64_t>(segments.begins.size());
  const fold_test::Mat2 init{1, 2, 3, 5};
  fold_test::DeviceBuffer<fold_test::Mat2> d_in(values), d_out(n);
  fold_test::DeviceBuffer<std::int64_t> d_begins(segments.begins), d_ends(segments.ends);
  for (int cap : {0, 1})
  {
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
