// SPDX-License-Identifier: Apache-2.0
// Huge inputs against closed forms: 2^31 + 7 and 2^32 + 7 bytes from memory (sums, the extremum and its 64-bit
// index, ArgMin/ArgMax on either side of 2^32 items, two segments across the 2^32 boundary, the axis reduction of
// the whole array); 2^34 items and the largest 32-bit counts through counting iterators; ArgMin/ArgMax over
// 64-bit values on either side of 2^32 items.
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "test_util.cuh"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/limits>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace
{
using fold_test::DeviceBuffer;

constexpr std::uint64_t period = 251;

//! Byte `i` of the huge arrays: `1 + i % 251` (1..251), so no byte is 0 or above 251.
__host__ __device__ inline std::uint8_t byte_at(std::uint64_t i)
{
  return static_cast<std::uint8_t>(1 + i % period);
}

__global__ void fill_bytes(std::uint8_t* out, std::uint64_t n)
{
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    out[i] = byte_at(i);
  }
}

//! The sum of `byte_at(i)` over `[0, end)`.
std::uint64_t byte_sum(std::uint64_t end)
{
  const std::uint64_t whole = end / period, rest = end % period;
  return whole * (period * (period + 1) / 2) + rest * (rest + 1) / 2;
}

//! Runs `call` the two-call way (with a sync and an error check).
template <typename CallT>
void run(CallT&& call)
{
  fold_test::two_call(call);
}

//! `|i - m|`: its minimum, 0, is at `m` alone.
struct DistanceTo
{
  std::uint64_t m;
  __host__ __device__ std::uint64_t operator()(std::uint64_t i) const { return i > m ? i - m : m - i; }
};

//! `i % 256`.
struct LowByte
{
  __host__ __device__ std::uint64_t operator()(std::uint64_t i) const { return i & 0xFF; }
};

//! The sum of `0 + 1 + ... + (n - 1)` modulo 2^64.
std::uint64_t triangle(std::uint64_t n)
{
  const unsigned __int128 t = static_cast<unsigned __int128>(n) * (n - 1) / 2;
  return static_cast<std::uint64_t>(t);
}

//! Doubles with their extremes around 2^32: 2.0 at `2^32 - 1` and `2^32 + 1`, -2.0 at `2^32 - 2` and `2^32 + 3`, a
//! NaN at `2^32 + 5`; in between, values in [-0.5, 0.5) that repeat every 1000 items.
struct MarkedDoubles
{
  __host__ __device__ double operator()(std::uint64_t i) const
  {
    constexpr std::uint64_t head = std::uint64_t{1} << 32;
    if (i == head - 1 || i == head + 1)
    {
      return 2.0;
    }
    if (i == head - 2 || i == head + 3)
    {
      return -2.0;
    }
    if (i == head + 5)
    {
      return ::cuda::std::numeric_limits<double>::quiet_NaN();
    }
    return static_cast<double>(i % 1000) * 1e-3 - 0.5;
  }
};

template <typename T>
struct Arg
{
  T value;
  std::int64_t index;
};

template <bool ForMax, typename InputT, typename NumItemsT>
auto arg_extremum(InputT in, NumItemsT n)
{
  using T = fold::detail::value_t<InputT>;
  DeviceBuffer<T> value(1);
  DeviceBuffer<std::int64_t> index(1);
  value.poison();
  index.poison();
  run(
      [&](void* t, std::size_t& b)
      {
        if constexpr (ForMax)
        {
          return fold::DeviceReduce::ArgMax(t, b, in, value.get(), index.get(), n);
        }
        else
        {
          return fold::DeviceReduce::ArgMin(t, b, in, value.get(), index.get(), n);
        }
      });
  return Arg<T>{value.front(), index.front()};
}
} // namespace

TEST_CASE("2^31 + 7 and 2^32 + 7 bytes from memory", "[device][huge]")
{
  for (std::uint64_t n : {(std::uint64_t{1} << 31) + 7, (std::uint64_t{1} << 32) + 7})
  {
    INFO("n " << n);
    DeviceBuffer<std::uint8_t> bytes(n);
    fill_bytes<<<1024, 256>>>(bytes.get(), n);
    CUDA_REQUIRE(cudaGetLastError());
    const std::uint8_t* in = bytes.get();
    DeviceBuffer<std::uint64_t> total(1);
    DeviceBuffer<std::uint8_t> extremum(1);

    // The sum, accumulated in 64 bits (Sum would accumulate bytes in int, as cub does, and overflow).
    total.poison();
    run([&](void* t, std::size_t& b)
        { return fold::DeviceReduce::Reduce(t, b, in, total.get(), n, fold::Sum{}, std::uint64_t{0}); });
    CHECK(total.front() == byte_sum(n));

    // The same through a signed 64-bit count and the largest 32-bit one (the first 2^32 - 1 bytes).
    total.poison();
    run(
        [&](void* t, std::size_t& b)
        {
          return fold::DeviceReduce::Reduce(
              t, b, in, total.get(), static_cast<std::int64_t>(n), fold::Sum{}, std::uint64_t{0});
        });
    CHECK(total.front() == byte_sum(n));
    if (n > std::numeric_limits<std::uint32_t>::max())
    {
      total.poison();
      const std::uint32_t n32 = std::numeric_limits<std::uint32_t>::max();
      run([&](void* t, std::size_t& b)
          { return fold::DeviceReduce::Reduce(t, b, in, total.get(), n32, fold::Sum{}, std::uint64_t{0}); });
      CHECK(total.front() == byte_sum(n32));
    }

    // A unique maximum (255) and minimum (0) beyond 2^31 (and beyond 2^32 in the larger array).
    const std::uint64_t at_max = n - 5, at_min = n - 3;
    const std::uint8_t marks[2] = {255, 0};
    CUDA_REQUIRE(cudaMemcpy(bytes.get() + at_max, &marks[0], 1, cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(bytes.get() + at_min, &marks[1], 1, cudaMemcpyHostToDevice));
    extremum.poison();
    run([&](void* t, std::size_t& b) { return fold::DeviceReduce::Max(t, b, in, extremum.get(), n); });
    CHECK(extremum.front() == 255);
    const auto max = arg_extremum<true>(in, n);
    CHECK(max.value == 255);
    CHECK(max.index == static_cast<std::int64_t>(at_max));
    const auto min = arg_extremum<false>(in, n);
    CHECK(min.value == 0);
    CHECK(min.index == static_cast<std::int64_t>(at_min));
    // The sum of the first `end` bytes with the marks in place.
    auto marked = [&](std::uint64_t end)
    {
      std::uint64_t sum = byte_sum(end);
      sum               = at_max < end ? sum - byte_at(at_max) + 255 : sum;
      return at_min < end ? sum - byte_at(at_min) : sum;
    };
    const std::uint64_t marked_sum = marked(n);

    // Two segments meeting at 2^31 + 3 (64-bit offsets), and one empty.
    const std::vector<std::int64_t> offsets = {0, (std::int64_t{1} << 31) + 3, static_cast<std::int64_t>(n), 7};
    DeviceBuffer<std::int64_t> d_offsets(offsets);
    DeviceBuffer<std::uint64_t> sums(3);
    sums.poison();
    run(
        [&](void* t, std::size_t& b)
        {
          return fold::DeviceSegmentedReduce::Reduce(
              t, b, in, sums.get(), 3, d_offsets.get(), d_offsets.get() + 1, fold::Sum{}, std::uint64_t{5});
        });
    const auto segment_sums = sums.to_host();
    CHECK(segment_sums[0] == 5 + marked(offsets[1]));
    CHECK(segment_sums[1] == 5 + marked_sum - marked(offsets[1]));
    CHECK(segment_sums[2] == 5);

    // The whole array as a [n / 3, 3] matrix reduced over both axes and over the first one.
    const auto rows = static_cast<std::int64_t>(n / 3);
    total.poison();
    run(
        [&](void* t, std::size_t& b) {
          return fold::DeviceReduceAxes::Reduce(
              t, b, in, total.get(), {rows, 3}, {0, 1}, fold::Sum{}, std::uint64_t{0});
        });
    const std::uint64_t matrix_sum = marked(3 * rows);
    CHECK(total.front() == matrix_sum);
    DeviceBuffer<std::uint64_t> columns(3);
    columns.poison();
    run(
        [&](void* t, std::size_t& b) {
          return fold::DeviceReduceAxes::Reduce(t, b, in, columns.get(), {rows, 3}, {0}, fold::Sum{}, std::uint64_t{0});
        });
    const auto column_sums = columns.to_host();
    CHECK(column_sums[0] + column_sums[1] + column_sums[2] == matrix_sum);
    std::uint64_t column0 = 0; // the closed form of column 0: bytes 0, 3, 6, ... (period 251 is prime to 3)
    for (std::uint64_t r = 0; r < period; ++r)
    {
      column0 += byte_at(3 * r);
    }
    column0 = column0 * (rows / period);
    for (std::uint64_t r = rows / period * period; r < static_cast<std::uint64_t>(rows); ++r)
    {
      column0 += byte_at(3 * r);
    }
    const std::uint64_t marked_column[2] = {at_max % 3, at_min % 3};
    for (int k = 0; k < 2; ++k)
    {
      const std::uint64_t at = k == 0 ? at_max : at_min;
      if (marked_column[k] == 0 && at < static_cast<std::uint64_t>(3 * rows))
      {
        column0 = column0 - byte_at(at) + marks[k];
      }
    }
    CHECK(column_sums[0] == column0);

    // ArgMin/ArgMax over up to 2^32 items reduce packed (index, value) pairs with 32-bit indices, beyond them
    // (int64 index, value) pairs. A 0 and a 255 just below 2^32: the first 2^32 bytes have their extremes at the
    // largest indices a packed pair holds, and the whole array ties with its marks beyond 2^32, where the first
    // occurrence is the one below 2^32.
    if (n > std::numeric_limits<std::uint32_t>::max())
    {
      const std::uint64_t head = std::uint64_t{1} << 32;
      CUDA_REQUIRE(cudaMemcpy(bytes.get() + head - 2, &marks[1], 1, cudaMemcpyHostToDevice));
      CUDA_REQUIRE(cudaMemcpy(bytes.get() + head - 1, &marks[0], 1, cudaMemcpyHostToDevice));
      for (std::uint64_t items : {head, n})
      {
        INFO("ArgMin/ArgMax over " << items << " items");
        const auto head_max = arg_extremum<true>(in, items);
        CHECK(head_max.value == 255);
        CHECK(head_max.index == static_cast<std::int64_t>(head - 1));
        const auto head_min = arg_extremum<false>(in, items);
        CHECK(head_min.value == 0);
        CHECK(head_min.index == static_cast<std::int64_t>(head - 2));
      }
    }
  }
}

TEST_CASE("2^34 items and the largest 32-bit counts through counting iterators", "[device][huge]")
{
  const std::uint64_t n = std::uint64_t{1} << 34;
  thrust::counting_iterator<std::uint64_t> count(0);
  DeviceBuffer<std::uint64_t> out(1);

  auto sum = [&](auto in, auto items)
  {
    out.poison();
    run([&](void* t, std::size_t& b) { return fold::DeviceReduce::Sum(t, b, in, out.get(), items); });
    return out.front();
  };
  CHECK(sum(count, n) == triangle(n)); // modulo 2^64, as the uint64 sum wraps
  CHECK(sum(count, static_cast<std::int64_t>(n)) == triangle(n));
  // The largest counts of 32-bit types: no offset arithmetic may wrap.
  CHECK(sum(count, std::numeric_limits<std::uint32_t>::max()) == triangle(std::numeric_limits<std::uint32_t>::max()));
  CHECK(sum(count, std::numeric_limits<std::int32_t>::max()) == triangle(std::numeric_limits<std::int32_t>::max()));

  out.poison();
  run([&](void* t, std::size_t& b) { return fold::DeviceReduce::Max(t, b, count, out.get(), n); });
  CHECK(out.front() == n - 1);

  const auto low_bytes = thrust::make_transform_iterator(count, LowByte{});
  CHECK(sum(low_bytes, n) == (n / 256) * (255 * 256 / 2));

  // A unique minimum at m > 2^33: a 64-bit index.
  const std::uint64_t m = (std::uint64_t{1} << 33) + 12345;
  const auto min        = arg_extremum<false>(thrust::make_transform_iterator(count, DistanceTo{m}), n);
  CHECK(min.value == 0);
  CHECK(min.index == static_cast<std::int64_t>(m));
  const auto max = arg_extremum<true>(count, n);
  CHECK(max.value == n - 1);
  CHECK(max.index == static_cast<std::int64_t>(n - 1));
}

TEST_CASE("ArgMin/ArgMax over 64-bit values on either side of 2^32 items", "[device][huge]")
{
  // Up to 2^32 items they reduce packed pairs of a 64-bit rank and a 32-bit index, beyond as (int64 index, value)
  // pairs: the extremes at the largest indices a packed pair holds, then ties and a NaN past 2^32.
  const std::uint64_t head = std::uint64_t{1} << 32;
  thrust::counting_iterator<std::uint64_t> count(0);
  const auto doubles = thrust::make_transform_iterator(count, MarkedDoubles{});
  for (std::uint64_t items : {head, head + 4})
  {
    INFO(items << " items");
    const auto max = arg_extremum<true>(doubles, items);
    CHECK(max.value == 2.0);
    CHECK(max.index == static_cast<std::int64_t>(head - 1));
    const auto min = arg_extremum<false>(doubles, items);
    CHECK(min.value == -2.0);
    CHECK(min.index == static_cast<std::int64_t>(head - 2));
  }
  const auto with_nan = arg_extremum<true>(doubles, head + 6);
  CHECK(std::isnan(with_nan.value));
  CHECK(with_nan.index == static_cast<std::int64_t>(head + 5));

  const auto last = arg_extremum<true>(count, head);
  CHECK(last.value == head - 1);
  CHECK(last.index == static_cast<std::int64_t>(head - 1));
  const auto at = arg_extremum<false>(thrust::make_transform_iterator(count, DistanceTo{head - 1}), head);
  CHECK(at.value == 0);
  CHECK(at.index == static_cast<std::int64_t>(head - 1));
}
