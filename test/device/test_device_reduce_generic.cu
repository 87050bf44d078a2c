// SPDX-License-Identifier: Apache-2.0
// DeviceReduce beyond the built-in types: a user struct with a user operator, a wider init, TransformReduce,
// input and output iterators, every kind of num_items, more than 2^31 items, and misaligned input.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace
{
//! A user struct reduced with a user operator: count, sum, min and max in one pass.
struct Stats
{
  std::int64_t count;
  std::int64_t sum;
  std::int32_t min;
  std::int32_t max;
  friend bool operator==(const Stats& a, const Stats& b)
  {
    return a.count == b.count && a.sum == b.sum && a.min == b.min && a.max == b.max;
  }
  friend std::ostream& operator<<(std::ostream& os, const Stats& s)
  {
    return os << "{count " << s.count << ", sum " << s.sum << ", min " << s.min << ", max " << s.max << "}";
  }
};

struct CombineStats
{
  __host__ __device__ Stats operator()(const Stats& a, const Stats& b) const
  {
    return {a.count + b.count, a.sum + b.sum, a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
  }
};

struct ToStats
{
  __host__ __device__ Stats operator()(std::int32_t x) const { return {1, x, x, x}; }
};

struct Square
{
  __host__ __device__ double operator()(float x) const { return static_cast<double>(x) * x; }
};

struct Negate
{
  __host__ __device__ std::int64_t operator()(std::int64_t x) const { return -x; }
};

struct Mod7
{
  __host__ __device__ std::int32_t operator()(std::int64_t i) const { return static_cast<std::int32_t>(i % 7) - 3; }
};
} // namespace

TEST_CASE("Reduce of a user struct with a user operator matches cub and the host", "[device][reduce]")
{
  const Stats init{0, 0, std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()};
  for (std::size_t n : fold_test::test_sizes(fold_test::tile_items<CombineStats, Stats>(), 41))
  {
    INFO("n " << n);
    const auto ints = fold_test::random_values<std::int32_t>(n, n + 9, fold_test::Values::full_range);
    std::vector<Stats> values(n);
    Stats expected = init;
    for (std::size_t i = 0; i < n; ++i)
    {
      values[i] = ToStats{}(ints[i]);
      expected  = CombineStats{}(expected, values[i]);
    }
    fold_test::DeviceBuffer<Stats> d_in(values);
    fold_test::DeviceBuffer<Stats> d_out(1);
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceReduce::Reduce(temp, bytes, d_in.get(), d_out.get(), n, CombineStats{}, init); });
    CHECK(d_out.front() == expected);
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return cub::DeviceReduce::Reduce(temp, bytes, d_in.get(), d_out.get(), n, CombineStats{}, init); });
    CHECK(d_out.front() == expected);
  }
}

TEST_CASE("A wider init gives a wider accumulator", "[device][reduce]")
{
  const std::size_t n = (1 << 20) + 3;
  SECTION("__half input, float init: sums past 2048 stay exact")
  {
    const auto values = fold_test::random_values<__half>(n, 1, fold_test::Values::small);
    fold_test::DeviceBuffer<__half> d_in(values);
    fold_test::DeviceBuffer<float> d_out(1);
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceReduce::Reduce(temp, bytes, d_in.get(), d_out.get(), n, fold::Sum{}, 0.0f); });
    CHECK(d_out.front() == static_cast<float>(fold_test::sum_reference(values).sum));
  }
  SECTION("int8 input, int64 init: no wrap-around")
  {
    std::vector<std::int8_t> values(n, 100);
    fold_test::DeviceBuffer<std::int8_t> d_in(values);
    fold_test::DeviceBuffer<std::int64_t> d_out(1);
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceReduce::Reduce(temp, bytes, d_in.get(), d_out.get(), n, fold::Sum{}, std::int64_t{5}); });
    CHECK(d_out.front() == 5 + 100 * static_cast<std::int64_t>(n));
  }
}

TEST_CASE("TransformReduce applies the transform as it loads", "[device][transform_reduce]")
{
  for (std::size_t n : fold_test::test_sizes(fold_test::tile_items<fold::Sum, float, double>(), 43))
  {
    INFO("n " << n);
    const auto values = fold_test::random_values<float>(n, n + 13, fold_test::Values::full_range);
    fold_test::DeviceBuffer<float> d_in(values);
    fold_test::DeviceBuffer<double> d_out(1);
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes) {
          return fold::DeviceReduce::TransformReduce(
              temp, bytes, d_in.get(), d_out.get(), n, fold::Sum{}, Square{}, 1.0);
        });
    double expected = 1.0, magnitude = 1.0;
    for (float v : values)
    {
      expected += Square{}(v);
      magnitude += Square{}(v);
    }
    const double bound = 1e-12 * magnitude; // double accumulation of at most 2^26 items
    CHECK(std::fabs(d_out.front() - expected) <= bound);
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes) {
          return cub::DeviceReduce::TransformReduce(
              temp, bytes, d_in.get(), d_out.get(), n, fold::Sum{}, Square{}, 1.0);
        });
    CHECK(std::fabs(d_out.front() - expected) <= bound);
  }
}

namespace
{
//! A 6-byte accumulator: over 1-byte items its tile is three 16-byte vectors per thread (the accumulator cap:
//! 256 / 6 = 42 items, rounded up to whole vectors), an odd number of slots.
struct Counts
{
  std::uint16_t items, odd, sum_low;
};
struct AddCounts
{
  __host__ __device__ Counts operator()(const Counts& a, const Counts& b) const
  {
    return {static_cast<std::uint16_t>(a.items + b.items),
            static_cast<std::uint16_t>(a.odd + b.odd),
            static_cast<std::uint16_t>(a.sum_low + b.sum_low)};
  }
};
struct ToCounts
{
  __host__ __device__ Counts operator()(std::uint8_t v) const
  {
    return {1, static_cast<std::uint16_t>(v & 1), static_cast<std::uint16_t>(v)};
  }
};
} // namespace

template <>
struct fold::is_commutative<AddCounts> : std::true_type
{
};

TEST_CASE("TransformReduce over bytes into a 6-byte accumulator: three vectors per thread, aligned or not",
          "[device][transform_reduce]")
{
  for (std::size_t n : {std::size_t{100'003}, std::size_t{3'000'017}})
  {
    const auto values = fold_test::random_values<std::uint8_t>(n, n + 5, fold_test::Values::full_range);
    fold_test::DeviceBuffer<std::uint8_t> d_in(values);
    fold_test::DeviceBuffer<Counts> d_out(1);
    for (std::size_t shift : {0, 1})
    {
      INFO("n " << n << ", shift " << shift);
      d_out.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes)
          {
            return fold::DeviceReduce::TransformReduce(
                temp, bytes, d_in.get() + shift, d_out.get(), n - shift, AddCounts{}, ToCounts{}, Counts{0, 0, 0});
          });
      Counts expected{0, 0, 0};
      for (std::size_t i = shift; i < n; ++i)
      {
        expected = AddCounts{}(expected, ToCounts{}(values[i]));
      }
      const Counts got = d_out.front();
      CHECK(got.items == expected.items);
      CHECK(got.odd == expected.odd);
      CHECK(got.sum_low == expected.sum_low);
    }
  }
}

TEST_CASE("Input iterators: counting and transform iterators", "[device][iterators]")
{
  const std::int64_t n = 3'000'017;
  fold_test::DeviceBuffer<std::int64_t> d_out(1);
  d_out.poison();
  thrust::counting_iterator<std::int64_t> counting(0);
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::Sum(temp, bytes, counting, d_out.get(), n); });
  CHECK(d_out.front() == n * (n - 1) / 2);

  auto mod7 = thrust::make_transform_iterator(counting, Mod7{});
  fold_test::DeviceBuffer<std::int32_t> d_min(1);
  fold_test::DeviceBuffer<std::int64_t> d_index(1);
  d_min.poison();
  d_index.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::ArgMax(temp, bytes, mod7, d_min.get(), d_index.get(), n); });
  CHECK(d_min.front() == 3);
  CHECK(d_index.front() == 6);
}

TEST_CASE("Output iterators and index outputs of other integer types", "[device][iterators]")
{
  const std::size_t n = 100'003;
  const auto values   = fold_test::random_values<std::int32_t>(n, 77, fold_test::Values::few);
  fold_test::DeviceBuffer<std::int32_t> d_in(values);

  fold_test::DeviceBuffer<std::int64_t> d_out(1);
  d_out.poison();
  auto negated = thrust::make_transform_output_iterator(d_out.get(), Negate{});
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      { return fold::DeviceReduce::Reduce(temp, bytes, d_in.get(), negated, n, fold::Sum{}, std::int64_t{0}); });
  std::int64_t sum = 0;
  for (auto v : values)
  {
    sum += v;
  }
  CHECK(d_out.front() == -sum);

  fold_test::DeviceBuffer<std::int32_t> d_min(1);
  fold_test::DeviceBuffer<std::int32_t> d_index32(1); // int64 index converted on store
  d_min.poison();
  d_index32.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::ArgMin(temp, bytes, d_in.get(), d_min.get(), d_index32.get(), n); });
  const auto first_min = std::min_element(values.begin(), values.end());
  CHECK(d_min.front() == *first_min);
  CHECK(d_index32.front() == static_cast<std::int32_t>(first_min - values.begin()));
}

TEMPLATE_TEST_CASE("num_items of any integer type",
                   "[device][num_items]",
                   std::int16_t,
                   std::uint16_t,
                   int,
                   unsigned,
                   long,
                   unsigned long long,
                   std::size_t)
{
  const auto n      = static_cast<TestType>(30'000);
  const auto values = fold_test::random_values<std::uint32_t>(n, 3, fold_test::Values::full_range);
  fold_test::DeviceBuffer<std::uint32_t> d_in(values);
  fold_test::DeviceBuffer<std::uint32_t> d_out(1);
  d_out.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::Sum(temp, bytes, d_in.get(), d_out.get(), n); });
  std::uint32_t expected = 0;
  for (auto v : values)
  {
    expected += v;
  }
  CHECK(d_out.front() == expected);
}

TEST_CASE("More than 2^31 items through a counting iterator", "[device][huge]")
{
  const std::int64_t n = (1ll << 31) + 12'345;
  thrust::counting_iterator<std::int64_t> counting(0);
  fold_test::DeviceBuffer<std::int64_t> d_out(1);
  fold_test::DeviceBuffer<std::int64_t> d_index(1);

  d_out.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::Sum(temp, bytes, counting, d_out.get(), n); });
  CHECK(d_out.front() == n * (n - 1) / 2);

  d_out.poison();
  d_index.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::ArgMax(temp, bytes, counting, d_out.get(), d_index.get(), n); });
  CHECK(d_out.front() == n - 1);
  CHECK(d_index.front() == n - 1);

  d_out.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      { return fold::DeviceReduce::Min(temp, bytes, counting + 5, d_out.get(), static_cast<std::uint64_t>(n)); });
  CHECK(d_out.front() == 5);
}

TEMPLATE_TEST_CASE("Misaligned input (pointer + 1 item) gives the same result",
                   "[device][alignment]",
                   std::int8_t,
                   std::uint16_t,
                   std::int32_t,
                   std::uint64_t,
                   float,
                   __half)
{
  using T = TestType;
  for (std::size_t n :
       {std::size_t{33}, static_cast<std::size_t>(fold_test::tile_items<fold::Max, T>()) + 1, std::size_t{1} << 22})
  {
    INFO("n " << n);
    const auto values = fold_test::random_values<T>(n + 1, n, fold_test::Values::small);
    fold_test::DeviceBuffer<T> d_in(values);
    fold_test::DeviceBuffer<T> d_out(1);
    d_out.poison();
    fold_test::two_call([&](void* temp, std::size_t& bytes)
                        { return fold::DeviceReduce::Max(temp, bytes, d_in.get() + 1, d_out.get(), n); });
    CHECK(fold_test::same_bits(d_out.front(), *std::max_element(values.begin() + 1, values.end())));

    // Small integers: the sum is exact in every type's accumulator (int, float, ...), so any dropped, doubled
    // or shifted item shows.
    std::int64_t expected = 0;
    for (std::size_t i = 1; i <= n; ++i)
    {
      expected += static_cast<std::int64_t>(fold_test::to_double(values[i]));
    }
    fold_test::DeviceBuffer<double> d_sum(1);
    d_sum.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceReduce::Reduce(temp, bytes, d_in.get() + 1, d_sum.get(), n, fold::Sum{}, 0.0); });
    CHECK(d_sum.front() == static_cast<double>(expected));
  }
}
