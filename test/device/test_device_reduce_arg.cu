// SPDX-License-Identifier: Apache-2.0
// DeviceReduce::ArgMin and ::ArgMax over every type at every size class: the extremum and the index of its
// first occurrence (ties everywhere with few distinct values) against a host reference and cub's two-output
// ArgMin/ArgMax; identity and index -1 for empty input. The single-output forms of CUB 3.0.1 (deprecated there and
// here) against the host and cub's own.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdint>
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

template <Op O, typename T>
ArgResult<T> host_arg(const std::vector<T>& values)
{
  ArgResult<T> best{values.front(), 0};
  for (std::size_t i = 1; i < values.size(); ++i)
  {
    if (O == Op::arg_min ? values[i] < best.value : best.value < values[i])
    {
      best = {values[i], static_cast<std::int64_t>(i)};
    }
  }
  return best;
}

//! The tile of ArgMin/ArgMax over `T`: that of the packed pairs' `Max` where they apply (inputs of up to 2^32
//! items, as here), of the (int64 index, value) pairs otherwise.
template <typename T>
int arg_tile_items()
{
  if constexpr (fold::detail::PackedArgReduction<T, true>::applies)
  {
    return fold_test::tile_items<fold::Max, T, typename fold::detail::PackedArgReduction<T, true>::PackedPair>();
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
      const ArgResult<T> expected = host_arg<O>(values);
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
    const ArgResult<T> expected = host_arg<O>(values);
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
