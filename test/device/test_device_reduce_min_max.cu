// SPDX-License-Identifier: Apache-2.0
// DeviceReduce::Min and ::Max over every type at every size class: bit-exact against a host reference and
// cub::DeviceReduce; the identity for empty input.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace
{
enum class Op
{
  min,
  max
};

template <Op O, typename T>
T fold_extremum(const T* d_in, std::size_t n)
{
  fold_test::DeviceBuffer<T> d_out(1);
  d_out.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return O == Op::min ? fold::DeviceReduce::Min(temp, bytes, d_in, d_out.get(), n)
                            : fold::DeviceReduce::Max(temp, bytes, d_in, d_out.get(), n);
      });
  return d_out.front();
}

template <Op O, typename T>
T cub_extremum(const T* d_in, std::size_t n)
{
  fold_test::DeviceBuffer<T> d_out(1);
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return O == Op::min ? cub::DeviceReduce::Min(temp, bytes, d_in, d_out.get(), n)
                            : cub::DeviceReduce::Max(temp, bytes, d_in, d_out.get(), n);
      });
  return d_out.front();
}

template <Op O, typename T>
T host_extremum(const std::vector<T>& values)
{
  T result = values.front();
  for (const T& v : values)
  {
    result = O == Op::min ? (v < result ? v : result) : (result < v ? v : result);
  }
  return result;
}

template <Op O, typename T>
void check_extremum()
{
  for (std::size_t n : fold_test::test_sizes(fold_test::tile_items<fold::Min, T>(), 11 * sizeof(T)))
  {
    for (auto kind : {fold_test::Values::full_range, fold_test::Values::few})
    {
      INFO("n " << n << ", values " << static_cast<int>(kind));
      const auto values = fold_test::random_values<T>(n, 3 * n + static_cast<int>(kind), kind);
      fold_test::DeviceBuffer<T> d_in(values);
      const T result = fold_extremum<O>(d_in.get(), n);
      if (n == 0)
      {
        const T identity = O == Op::min ? fold::detail::min_identity<T>() : fold::detail::max_identity<T>();
        CHECK(fold_test::same_bits(result, identity));
        continue;
      }
      const T expected = host_extremum<O>(values);
      INFO("fold " << fold_test::to_double(result) << ", expected " << fold_test::to_double(expected));
      CHECK(fold_test::same_bits(result, expected));
      CHECK(fold_test::same_bits(cub_extremum<O>(d_in.get(), n), expected));
    }
  }
}
} // namespace

TEMPLATE_LIST_TEST_CASE("Min equals the host's and cub's", "[device][min]", fold_test::AllTypes)
{
  check_extremum<Op::min, TestType>();
}

TEMPLATE_LIST_TEST_CASE("Max equals the host's and cub's", "[device][max]", fold_test::AllTypes)
{
  check_extremum<Op::max, TestType>();
}

TEST_CASE("Min and Max identities for empty input", "[device][min][max]")
{
  CHECK(fold::detail::min_identity<float>() == std::numeric_limits<float>::infinity());
  CHECK(fold::detail::max_identity<double>() == -std::numeric_limits<double>::infinity());
  CHECK(fold::detail::min_identity<std::int8_t>() == 127);
  CHECK(fold::detail::max_identity<std::uint16_t>() == 0);
  CHECK(std::isinf(static_cast<float>(fold::detail::min_identity<__half>())));
}
