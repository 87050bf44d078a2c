// SPDX-License-Identifier: Apache-2.0
// DeviceReduce::ArgMin and ::ArgMax over every type at every size class: the extremum and the index of its
// first occurrence (ties everywhere with few distinct values) against a host reference and cub's two-output
// ArgMin/ArgMax; identity and index -1 for empty input. The single-output forms of CUB 3.0.1 (deprecated there and
// here) against the host and cub's own. 1- and 2-byte items in arrangements that make every tile's winner search
// count (fold/detail/tile_fold.cuh): ramps, plateaus, planted extremes, signed zeros and NaNs, aligned or not.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace
{
enum class Op
{
  arg_min,
  arg_max
};

template <typename T>
struct ArgResult
{
  T value;
  std::int64_t index;
};

template <Op O, typename T>
ArgResult<T> fold_arg(const T* d_in, std::size_t n)
{
  fold_test::DeviceBuffer<T> d_value(1);
  fold_test::DeviceBuffer<std::int64_t> d_index(1);
  d_value.poison();
  d_index.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return O == Op::arg_min ? fold::DeviceReduce::ArgMin(temp, bytes, d_in, d_value.get(), d_index.get(), n)
                                : fold::DeviceReduce::ArgMax(temp, bytes, d_in, d_value.get(), d_index.get(), n);
      });
  return {d_value.front(), d_index.front()};
}

template <Op O, typename T>
ArgResult<T> cub_arg(const T* d_in, std::size_t n)
{
  fold_test::DeviceBuffer<T> d_value(1);
  fold_test::DeviceBuffer<std::int64_t> d_index(1);
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        const auto count = static_cast<std::int64_t>(n);
        return O == Op::arg_min ? cub::DeviceReduce::ArgMin(temp, bytes, d_in, d_value.get(), d_index.get(), count)
                                : cub::DeviceReduce::ArgMax(temp, bytes, d_in, d_value.get(), d_index.get(), count);
      });
  return {d_value.front(), d_index.front()};
}

//! The first item that comes first in fold's order (`fold::detail::max_before` with `ForMax`, `min_before`
//! otherwise: NaN first in both, +0.0 above -0.0), as ArgMin/ArgMax define it.
template <bool ForMax, typename T>
ArgResult<T> host_arg_in_order(const std::vector<T>& values)
{
  ArgResult<T> best{values.front(), 0};
  for (std::size_t i = 1; i < values.size(); ++i)
  {
    const bool before =
        ForMax ? fold::detail::max_before(values[i], best.value) : fold::detail::min_before(values[i], best.value);
    if (before)
    {
      best = {values[i], static_cast<std::int64_t>(i)};
    }
  }
  return best;
}

//! The tile of ArgMin/ArgMax over `T`: that of the packed pairs where they apply (inputs of up to 2^32 items, as
//! here), of the (int64 index, value) pairs otherwise.
template <typename T>
int arg_tile_items()
{
  if constexpr (fold::detail::PackedArgReduction<T, true>::applies)
  {
    using Packed = fold::detail::PackedArgReduction<T, true>;
    return fold_test::tile_items<typename Packed::Op, T, typename Packed::PackedPair>();
  }
  else
  {
    return fold_test::tile_items<fold::ArgMax, T, fold::KeyValuePair<std::int64_t, T>>();
  }
}

template <Op O, typename T>
void check_arg()
{
  for (std::size_t n : fold_test::test_sizes(arg_tile_items<T>(), 17 * sizeof(T)))
  {
    for (auto kind : {fold_test::Values::full_range, fold_test::Values::few})
    {
      INFO("n " << n << ", values " << static_cast<int>(kind));
      const auto values = fold_test::random_values<T>(n, 5 * n + static_cast<int>(kind), kind);
      fold_test::DeviceBuffer<T> d_in(values);
      const ArgResult<T> result = fold_arg<O>(d_in.get(), n);
      if (n == 0)
      {
        const T identity = O == Op::arg_min ? fold::detail::min_identity<T>() : fold::detail::max_identity<T>();
        CHECK(fold_test::same_bits(result.value, identity));
        CHECK(result.index == -1);
        continue;
      }
      const ArgResult<T> expected = host_arg_in_order<O == Op::arg_max>(values);
      INFO("fold " << fold_test::to_double(result.value) << " at " << result.index << ", expected "
                   << fold_test::to_double(expected.value) << " at " << expected.index);
      CHECK(fold_test::same_bits(result.value, expected.value));
      CHECK(result.index == expected.index);
      const ArgResult<T> cub = cub_arg<O>(d_in.get(), n);
      CHECK(fold_test::same_bits(cub.value, expected.value));
      CHECK(cub.index == expected.index);
    }
  }
}

//! Arrangements of items that exercise the winner-first tile fold.
enum class Arrangement
{
  ramp_up,   //!< non-decreasing steps: the maximum first appears inside a late tile, the minimum at 0
  ramp_down, //!< the reverse
  plateau,   //!< one value everywhere: index 0 for both
  planted,   //!< few values, with each extreme planted twice at random places (the first must win)
  zeros,     //!< floats: negative numbers with -0.0 and +0.0 planted (ArgMax: the first +0.0)
  nans,      //!< floats: NaNs of both signs planted (both: the first NaN)
};

template <typename T>
std::vector<T> arranged(Arrangement a, std::size_t n, std::uint64_t seed)
{
  fold_test::Random random{seed};
  // 8-byte integers within +-2^62, whose ramp steps a double converts back exactly in range (2^63 would not).
  constexpr bool wide = !fold::is_floating_v<T> && sizeof(T) == 8;
  const double lo     = fold::is_floating_v<T> ? -1000.0
                        : wide                 ? (std::is_signed_v<T> ? -0x1p62 : 0.0)
                                               : static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi     = fold::is_floating_v<T> ? 1000.0
                        : wide                 ? 0x1p62
                                               : static_cast<double>(std::numeric_limits<T>::max());
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    const double step = std::floor(static_cast<double>(i) * 97.0 / static_cast<double>(n)); // 97 steps
    switch (a)
    {
    case Arrangement::ramp_up:
      values[i] = fold_test::from_double<T>(lo + step * (hi - lo) / 96.0);
      break;
    case Arrangement::ramp_down:
      values[i] = fold_test::from_double<T>(hi - step * (hi - lo) / 96.0);
      break;
    case Arrangement::plateau:
      values[i] = fold_test::from_double<T>(std::round((lo + hi) / 4));
      break;
    case Arrangement::planted:
      values[i] = fold_test::from_double<T>(static_cast<double>(random.between(10, 13)));
      break;
    case Arrangement::zeros:
    case Arrangement::nans:
      values[i] = fold_test::from_double<T>(-static_cast<double>(random.between(1, 9)) / 8.0);
      break;
    }
  }
  auto plant = [&](double v)
  {
    const auto i = static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(n) - 1));
    values[i]    = fold_test::from_double<T>(v);
  };
  if (a == Arrangement::planted)
  {
    for (int copy = 0; copy < 2; ++copy)
    {
      plant(20.0);
      plant(3.0);
    }
  }
  if constexpr (fold::is_floating_v<T>)
  {
    if (a == Arrangement::zeros)
    {
      for (int copy = 0; copy < 3; ++copy)
      {
        plant(-0.0);
        plant(0.0);
      }
    }
    if (a == Arrangement::nans)
    {
      plant(-std::numeric_limits<double>::quiet_NaN());
      plant(std::numeric_limits<double>::quiet_NaN());
    }
  }
  return values;
}

template <bool ForMax, typename T>
void check_arranged(const std::vector<T>& values, const T* d_in)
{
  const ArgResult<T> result   = fold_arg < ForMax ? Op::arg_max : Op::arg_min > (d_in, values.size());
  const ArgResult<T> expected = host_arg_in_order<ForMax>(values);
  INFO((ForMax ? "ArgMax: " : "ArgMin: ")
       << "fold " << fold_test::to_double(result.value) << " at " << result.index << ", expected "
       << fold_test::to_double(expected.value) << " at " << expected.index);
  CHECK(result.index == expected.index);
  if (!std::isnan(fold_test::to_double(expected.value)))
  {
    CHECK(fold_test::same_bits(result.value, expected.value));
  }
  else
  {
    CHECK(std::isnan(fold_test::to_double(result.value)));
  }
}

// The single-output forms are deprecated; these tests call them on purpose (fold's and cub's).
#pragma nv_diag_suppress 1444
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

//! The single-output ArgMin/ArgMax into a `PairT` (any pair with an integer `key`), the count as an `int`.
template <Op O, typename PairT, typename T>
PairT fold_arg_pair(const T* d_in, int n)
{
  fold_test::DeviceBuffer<PairT> d_out(1);
  d_out.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return O == Op::arg_min ? fold::DeviceReduce::ArgMin(temp, bytes, d_in, d_out.get(), n, 0)
                                : fold::DeviceReduce::ArgMax(temp, bytes, d_in, d_out.get(), n, 0);
      });
  return d_out.front();
}

template <Op O, typename T>
cub::KeyValuePair<int, T> cub_arg_pair(const T* d_in, int n)
{
  fold_test::DeviceBuffer<cub::KeyValuePair<int, T>> d_out(1);
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return O == Op::arg_min ? cub::DeviceReduce::ArgMin(temp, bytes, d_in, d_out.get(), n)
                                : cub::DeviceReduce::ArgMax(temp, bytes, d_in, d_out.get(), n);
      });
  return d_out.front();
}

template <Op O, typename T>
void check_arg_pair()
{
  for (std::size_t n : fold_test::test_sizes(arg_tile_items<T>(), 17 * sizeof(T)))
  {
    const auto values = fold_test::random_values<T>(n, 7 * n + 1, fold_test::Values::few);
    fold_test::DeviceBuffer<T> d_in(values);
    const auto count = static_cast<int>(n);
    INFO("n " << n);
    const auto pair = fold_arg_pair<O, fold::KeyValuePair<int, T>>(d_in.get(), count);
    const auto wide = fold_arg_pair<O, fold::KeyValuePair<std::int64_t, T>>(d_in.get(), count);
    if (n == 0)
    {
      const T identity = O == Op::arg_min ? fold::detail::min_identity<T>() : fold::detail::max_identity<T>();
      CHECK(pair.key == -1);
      CHECK(fold_test::same_bits(pair.value, identity));
      CHECK(wide.key == -1);
      continue;
    }
    const ArgResult<T> expected = host_arg_in_order<O == Op::arg_max>(values);
    CHECK(pair.key == expected.index);
    CHECK(fold_test::same_bits(pair.value, expected.value));
    CHECK(wide.key == expected.index);
    CHECK(fold_test::same_bits(wide.value, expected.value));
    const auto cub = cub_arg_pair<O>(d_in.get(), count);
    CHECK(cub.key == expected.index);
    CHECK(fold_test::same_bits(cub.value, expected.value));
  }
}
} // namespace

TEMPLATE_TEST_CASE("The single-output ArgMin/ArgMax of cub 3.0.1 (deprecated) write KeyValuePair<int, T>",
                   "[device][argmin][argmax]",
                   float,
                   std::int32_t,
                   double)
{
  check_arg_pair<Op::arg_min, TestType>();
  check_arg_pair<Op::arg_max, TestType>();
}

TEMPLATE_LIST_TEST_CASE("ArgMin finds the first minimum, as the host and cub do",
                        "[device][argmin]",
                        fold_test::AllTypes)
{
  check_arg<Op::arg_min, TestType>();
}

TEMPLATE_LIST_TEST_CASE("ArgMax finds the first maximum, as the host and cub do",
                        "[device][argmax]",
                        fold_test::AllTypes)
{
  check_arg<Op::arg_max, TestType>();
}

TEMPLATE_TEST_CASE(
    "ArgMin/ArgMax over 1-, 2-, 4- and 8-byte items find the first extreme in every arrangement, aligned or not",
    "[device][argmin][argmax]",
    std::int8_t,
    std::uint8_t,
    std::int16_t,
    std::uint16_t,
    __half,
    __nv_bfloat16,
    std::int32_t,
    std::uint32_t,
    float,
    std::int64_t,
    std::uint64_t,
    double)
{
  using T                = TestType;
  const std::size_t tile = static_cast<std::size_t>(arg_tile_items<T>());
  std::vector<Arrangement> arrangements{
      Arrangement::ramp_up, Arrangement::ramp_down, Arrangement::plateau, Arrangement::planted};
  if constexpr (fold::is_floating_v<T>)
  {
    arrangements.push_back(Arrangement::zeros);
    arrangements.push_back(Arrangement::nans);
  }
  for (std::size_t n : {3 * tile + 5, std::size_t{(1 << 20) + 3}, std::size_t{5'000'011}})
  {
    for (Arrangement a : arrangements)
    {
      for (std::uint64_t seed = 0; seed < 3; ++seed)
      {
        INFO("n " << n << ", arrangement " << static_cast<int>(a) << ", seed " << seed);
        const auto values = arranged<T>(a, n, 31 * n + 7 * static_cast<std::uint64_t>(a) + seed);
        fold_test::DeviceBuffer<T> d_in(values);
        check_arranged<false>(values, d_in.get());
        check_arranged<true>(values, d_in.get());
        // One item in: no vector loads, items folded one by one, the same result as the host's.
        const std::vector<T> shifted(values.begin() + 1, values.end());
        check_arranged<false>(shifted, d_in.get() + 1);
        check_arranged<true>(shifted, d_in.get() + 1);
      }
    }
  }
}
