// SPDX-License-Identifier: Apache-2.0
// DeviceSegmentedReduce::Min, Max, ArgMin and ArgMax over segments of every size class: exact results against a
// host reference with fold's floating-point rules (NaN first, -0.0 below +0.0, first index on ties) and against
// cub where the rules agree; empty segments; a segment of more than 2^32 items through 64-bit offsets; ArgMax over
// fixed-size segments of 2^32 items and more; and a custom operator over index-value pairs the items carry, whose
// 64-bit indices small segments must keep whole.
#include <fold/device/device_segmented_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace
{
//! Back-to-back segments of every class (lengths up to a few large segments), empty ones among them.
std::vector<std::int64_t> offsets_of_every_class(std::uint64_t seed, std::int64_t block_max)
{
  fold_test::Random random{seed};
  std::vector<std::int64_t> offsets = {0};
  auto add                          = [&](std::int64_t length) { offsets.push_back(offsets.back() + length); };
  for (std::int64_t length : {0, 1, 3, 5, 17, 100, 128, 129, 600, 4096, 4097, 30000, 0})
  {
    add(length);
  }
  for (int i = 0; i < 400; ++i)
  {
    add(random.between(0, i % 10 == 0 ? 20000 : 200));
  }
  add(block_max + 1);
  add(3 * block_max + 11);
  return offsets;
}

//! `x` before `y` in fold's order for the minimum (`ForMax`: the maximum): NaN first, then -0.0 before +0.0.
template <bool ForMax>
bool before(float x, float y)
{
  if (std::isnan(x) || std::isnan(y))
  {
    return std::isnan(x) && !std::isnan(y);
  }
  if (x == y)
  {
    return std::signbit(x) != std::signbit(y) && (ForMax ? !std::signbit(x) : std::signbit(x));
  }
  return ForMax ? x > y : x < y;
}

template <bool ForMax>
void check_extrema(const std::vector<float>& values, const std::vector<std::int64_t>& offsets, bool with_cub)
{
  const auto n = static_cast<std::int64_t>(offsets.size()) - 1;
  fold_test::DeviceBuffer<float> d_in(values), d_out(n), d_cub(n);
  fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets);
  using Pair = fold::KeyValuePair<int, float>;
  fold_test::DeviceBuffer<Pair> d_arg(n);
  fold_test::DeviceBuffer<cub::KeyValuePair<int, float>> d_cub_arg(n);
  for (auto* buffer : {&d_out, &d_cub})
  {
    buffer->poison();
  }
  d_arg.poison();
  d_cub_arg.poison();
  const std::int64_t* b = d_offsets.get();
  const std::int64_t* e = d_offsets.get() + 1;
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return ForMax ? fold::DeviceSegmentedReduce::Max(temp, bytes, d_in.get(), d_out.get(), n, b, e)
                      : fold::DeviceSegmentedReduce::Min(temp, bytes, d_in.get(), d_out.get(), n, b, e);
      });
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return ForMax ? fold::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in.get(), d_arg.get(), n, b, e)
                      : fold::DeviceSegmentedReduce::ArgMin(temp, bytes, d_in.get(), d_arg.get(), n, b, e);
      });
  if (with_cub)
  {
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        {
          return ForMax ? cub::DeviceSegmentedReduce::Max(temp, bytes, d_in.get(), d_cub.get(), n, b, e)
                        : cub::DeviceSegmentedReduce::Min(temp, bytes, d_in.get(), d_cub.get(), n, b, e);
        });
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        {
          return ForMax ? cub::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in.get(), d_cub_arg.get(), n, b, e)
                        : cub::DeviceSegmentedReduce::ArgMin(temp, bytes, d_in.get(), d_cub_arg.get(), n, b, e);
        });
  }
  const auto out = d_out.to_host(), theirs = d_cub.to_host();
  const auto arg       = d_arg.to_host();
  const auto their_arg = d_cub_arg.to_host();
  const float identity = ForMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  for (std::int64_t i = 0; i < n; ++i)
  {
    int best = -1;
    for (std::int64_t j = offsets[i]; j < offsets[i + 1]; ++j)
    {
      if (best < 0 || before<ForMax>(values[j], values[offsets[i] + best]))
      {
        best = static_cast<int>(j - offsets[i]);
      }
    }
    const float expected = best < 0 ? identity : values[offsets[i] + best];
    INFO("segment " << i << " of length " << offsets[i + 1] - offsets[i] << (ForMax ? ", max" : ", min"));
    if (std::isnan(expected))
    {
      CHECK(fold_test::same_bits(out[i], std::numeric_limits<float>::quiet_NaN()));
      CHECK(fold_test::same_bits(arg[i].value, std::numeric_limits<float>::quiet_NaN()));
    }
    else
    {
      CHECK(fold_test::same_bits(out[i], expected));
      CHECK(fold_test::same_bits(arg[i].value, expected));
    }
    CHECK(arg[i].key == best);
    if (with_cub && best >= 0)
    {
      CHECK(out[i] == theirs[i]);
      CHECK(arg[i].key == their_arg[i].key);
      CHECK(arg[i].value == their_arg[i].value);
    }
  }
}
} // namespace

TEST_CASE("Segmented Min/Max/ArgMin/ArgMax of every size class, with ties, against the host and cub",
          "[device][segmented]")
{
  const auto shape = fold::detail::reduce_tile_shape<const float*, fold::KeyValuePair<std::int64_t, std::int32_t>>(
      fold_test::current_ptx_version());
  const auto offsets = offsets_of_every_class(3, 64ll * shape.tile_items);
  const auto values  = fold_test::random_values<float>(offsets.back(), 4, fold_test::Values::few);
  check_extrema<false>(values, offsets, true);
  check_extrema<true>(values, offsets, true);
}

TEST_CASE("Segmented Min/Max/ArgMin/ArgMax: NaN first, -0.0 below +0.0", "[device][segmented][float]")
{
  const auto shape = fold::detail::reduce_tile_shape<const float*, fold::KeyValuePair<std::int64_t, std::int32_t>>(
      fold_test::current_ptx_version());
  const auto offsets = offsets_of_every_class(5, 64ll * shape.tile_items);
  auto values        = fold_test::random_values<float>(offsets.back(), 6, fold_test::Values::full_range);
  fold_test::Random random{7};
  for (float& v : values)
  {
    const auto r = random.next() % 2000;
    v            = r == 0 ? std::numeric_limits<float>::quiet_NaN() : r < 400 ? (r % 2 ? -0.0f : 0.0f) : v;
  }
  check_extrema<false>(values, offsets, false);
  check_extrema<true>(values, offsets, false);
}

TEST_CASE("A segment of more than 2^32 items through 64-bit offsets", "[device][segmented][huge]")
{
  // Items i % 7 from a counting iterator: closed-form sums, no memory.
  const std::int64_t huge                 = (std::int64_t{1} << 32) + 5;
  auto items                              = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                               [] __host__ __device__(std::int64_t i) { return i % 7; });
  const std::vector<std::int64_t> offsets = {0, 3, huge, huge + 10, huge + 10};
  fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets), d_out(4);
  d_out.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes) {
        return fold::DeviceSegmentedReduce::Sum(
            temp, bytes, items, d_out.get(), 4, d_offsets.get(), d_offsets.get() + 1);
      });
  auto closed_form = [](std::int64_t end) // sum of i % 7 over [0, end)
  { return end / 7 * 21 + (end % 7) * (end % 7 - 1) / 2; };
  const auto out = d_out.to_host();
  CHECK(out[0] == closed_form(3));
  CHECK(out[1] == closed_form(huge) - closed_form(3));
  CHECK(out[2] == closed_form(huge + 10) - closed_form(huge));
  CHECK(out[3] == 0);
}

namespace
{
//! Item `i` of the fixed-size ArgMax test: `i % 7`, and 9 at the items `peaks` names (their indices as given).
struct PeaksAt
{
  std::int64_t first, second;
  __host__ __device__ int operator()(std::int64_t i) const
  {
    return i == first || i == second ? 9 : static_cast<int>(i % 7);
  }
};
} // namespace

TEST_CASE("Fixed-size segments of 2^32 items and more: ArgMax's indices past 2^31 and 2^32",
          "[device][segmented][huge]")
{
  // Indices past 2^31 (a signed 32-bit index would wrap) and past 2^32 (an unsigned one would). Two segments of each
  // size from a counting iterator, with the maximum near each segment's end: local index size - 1 in the first and
  // size - 2 in the second (past 2^32 for the longer size); elsewhere 6 ties at every 7th.
  for (const std::int64_t size : {std::int64_t{1} << 32, (std::int64_t{1} << 32) + 3})
  {
    CAPTURE(size);
    const PeaksAt peaks{size - 1, size + size - 2};
    auto items = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), peaks);
    fold_test::DeviceBuffer<fold::KeyValuePair<std::int64_t, int>> d_out(2);
    d_out.poison();
    fold_test::two_call([&](void* temp, std::size_t& bytes)
                        { return fold::DeviceSegmentedReduce::ArgMax(temp, bytes, items, d_out.get(), 2, size); });
    const auto out = d_out.to_host();
    CHECK(out[0].key == size - 1);
    CHECK(out[0].value == 9);
    CHECK(out[1].key == size - 2);
    CHECK(out[1].value == 9);
  }
}

namespace
{
//! Item `i` as an index-value pair whose index is past 2^32 (as a pair the items carry, not one a kernel makes):
//! index 2^33 + 3i, a value of 1000 levels, so ties are everywhere.
struct CarriedPair
{
  __host__ __device__ fold::KeyValuePair<std::int64_t, float> operator()(std::int64_t i) const
  {
    return {(std::int64_t{1} << 33) + 3 * i, static_cast<float>((static_cast<std::uint64_t>(i) * 2654435761u) % 1000u)};
  }
};

//! The pair of the smaller value, the earlier one on ties.
struct MinCarriedPair
{
  __host__ __device__ fold::KeyValuePair<std::int64_t, float>
  operator()(const fold::KeyValuePair<std::int64_t, float>& earlier,
             const fold::KeyValuePair<std::int64_t, float>& later) const
  {
    return later.value < earlier.value ? later : earlier;
  }
};
} // namespace

TEST_CASE("Segmented Reduce over index-value pairs the items carry keeps 64-bit indices in small segments",
          "[device][segmented]")
{
  // The small segments' lane groups shuffle the arg-reductions' pairs with 32-bit indices, which count from the
  // segment's first item; a pair the items carry keeps its whole index (here every index is past 2^32).
  constexpr std::int64_t lengths[]  = {5, 17, 33, 64, 100, 128}; // one lane to 32 lanes a segment
  std::vector<std::int64_t> offsets = {0};
  for (int i = 0; i < 3000; ++i)
  {
    offsets.push_back(offsets.back() + lengths[i % 6]);
  }
  const auto n  = static_cast<std::int64_t>(offsets.size()) - 1;
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), CarriedPair{});
  const fold::KeyValuePair<std::int64_t, float> init{-1, std::numeric_limits<float>::infinity()};
  fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets);
  fold_test::DeviceBuffer<fold::KeyValuePair<std::int64_t, float>> d_out(n);
  d_out.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceSegmentedReduce::Reduce(
            temp, bytes, in, d_out.get(), n, d_offsets.get(), d_offsets.get() + 1, MinCarriedPair{}, init);
      });
  const auto out     = d_out.to_host();
  std::int64_t wrong = 0;
  for (std::int64_t s = 0; s < n; ++s)
  {
    fold::KeyValuePair<std::int64_t, float> best = init;
    for (std::int64_t i = offsets[static_cast<std::size_t>(s)]; i < offsets[static_cast<std::size_t>(s + 1)]; ++i)
    {
      best = MinCarriedPair{}(best, CarriedPair{}(i));
    }
    const auto& got = out[static_cast<std::size_t>(s)];
    wrong += got.key == best.key && got.value == best.value ? 0 : 1;
  }
  CHECK(wrong == 0);
}
