// SPDX-License-Identifier: Apache-2.0
// The floating-point semantics of Min, Max, ArgMin, ArgMax and Sum (see fold/util/operators.cuh and
// docs/semantics.md): NaNs, infinities, signed zeros, all-NaN input, ties. Each case runs on every path and at
// several grid sizes: fold's min/max order is exact, so every tree must give the same bits.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cuda/std/limits>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace
{
using fold::detail::ReducePath;

template <typename T>
struct Results
{
  T min, max, arg_min_value, arg_max_value;
  std::int64_t arg_min_index, arg_max_index;
  fold::detail::sum_init_t<T> sum;
};

template <typename T>
Results<T> reduce_all(const std::vector<T>& values, ReducePath path, int max_grid)
{
  fold_test::ForceDispatch force(path, max_grid);
  const std::size_t n = values.size();
  fold_test::DeviceBuffer<T> d_in(values);
  fold_test::DeviceBuffer<T> d_values(4);
  fold_test::DeviceBuffer<std::int64_t> d_index(2);
  fold_test::DeviceBuffer<fold::detail::sum_init_t<T>> d_sum(1);
  d_values.poison();
  d_index.poison();
  using fold::DeviceReduce;
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return DeviceReduce::Min(t, b, d_in.get(), d_values.get(), n, 0, fold_test::forced); });
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return DeviceReduce::Max(t, b, d_in.get(), d_values.get() + 1, n, 0, fold_test::forced); });
  fold_test::two_call(
      [&](void* t, std::size_t& b)
      { return DeviceReduce::ArgMin(t, b, d_in.get(), d_values.get() + 2, d_index.get(), n, 0, fold_test::forced); });
  fold_test::two_call(
      [&](void* t, std::size_t& b) {
        return DeviceReduce::ArgMax(t, b, d_in.get(), d_values.get() + 3, d_index.get() + 1, n, 0, fold_test::forced);
      });
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return DeviceReduce::Sum(t, b, d_in.get(), d_sum.get(), n, 0, fold_test::forced); });
  const auto v = d_values.to_host();
  const auto i = d_index.to_host();
  return {v[0], v[1], v[2], v[3], i[0], i[1], d_sum.front()};
}

template <typename T>
bool is_nan(const T& x)
{
  return std::isnan(fold_test::to_double(x));
}

template <typename T>
bool negative_zero(const T& x)
{
  return fold_test::to_double(x) == 0 && std::signbit(fold_test::to_double(x));
}

template <typename T>
bool positive_zero(const T& x)
{
  return fold_test::to_double(x) == 0 && !std::signbit(fold_test::to_double(x));
}

using fold_test::PathCase;
const PathCase paths[] = {{ReducePath::automatic, 0},
                          {ReducePath::single_pass, 1},
                          {ReducePath::single_pass, 7},
                          {ReducePath::two_pass, 0},
                          {ReducePath::two_pass, 99}};

const std::size_t sizes[] = {1000, 300'007, 5'000'011};
} // namespace

TEMPLATE_TEST_CASE("NaN: Min and Max return the canonical NaN; ArgMin and ArgMax the first NaN's index; Sum a NaN",
                   "[device][float-semantics]",
                   float,
                   double,
                   __half,
                   __nv_bfloat16)
{
  using T = TestType;
  for (std::size_t n : sizes)
  {
    auto values = fold_test::nonzero_numbers<T>(n, n);
    // Two NaNs of different payloads and signs; the first one at `first`.
    const std::size_t first = n / 3, second = n / 2;
    values[first]     = fold_test::from_double<T>(-std::numeric_limits<double>::quiet_NaN());
    values[second]    = fold_test::from_double<T>(std::numeric_limits<double>::quiet_NaN());
    const T canonical = cuda::std::numeric_limits<T>::quiet_NaN();
    for (const PathCase& c : paths)
    {
      INFO("n " << n << ", path " << static_cast<int>(c.path) << ", max grid " << c.max_grid);
      const Results<T> r = reduce_all(values, c.path, c.max_grid);
      CHECK(fold_test::same_bits(r.min, canonical));
      CHECK(fold_test::same_bits(r.max, canonical));
      CHECK(r.arg_min_index == static_cast<std::int64_t>(first));
      CHECK(r.arg_max_index == static_cast<std::int64_t>(first));
      CHECK(fold_test::same_bits(r.arg_min_value, canonical));
      CHECK(fold_test::same_bits(r.arg_max_value, canonical));
      CHECK(is_nan(r.sum));
    }
  }
}

TEMPLATE_TEST_CASE("All-NaN input", "[device][float-semantics]", float, double, __half, __nv_bfloat16)
{
  using T = TestType;
  const std::vector<T> values(70'001, fold_test::from_double<T>(std::numeric_limits<double>::quiet_NaN()));
  const Results<T> r = reduce_all(values, ReducePath::automatic, 0);
  CHECK(is_nan(r.min));
  CHECK(is_nan(r.max));
  CHECK(r.arg_min_index == 0);
  CHECK(r.arg_max_index == 0);
  CHECK(is_nan(r.sum));
}

//! On every path, over `values` (positive numbers and zeros of both signs, no negative number): Min and ArgMin give
//! -0.0, ArgMin at `first_negative_zero` (the first -0.0); then, the values negated, Max and ArgMax give +0.0, ArgMax
//! at the same index (the negated -0.0 is the first +0.0).
template <typename T>
void check_signed_zero_extremes(std::vector<T> values, std::size_t first_negative_zero)
{
  for (const PathCase& c : paths)
  {
    INFO("Min, n " << values.size() << ", path " << static_cast<int>(c.path) << ", max grid " << c.max_grid);
    const Results<T> r = reduce_all(values, c.path, c.max_grid);
    CHECK(negative_zero(r.min));
    CHECK(negative_zero(r.arg_min_value));
    CHECK(r.arg_min_index == static_cast<std::int64_t>(first_negative_zero));
  }
  for (auto& v : values)
  {
    v = fold_test::from_double<T>(-fold_test::to_double(v));
  }
  for (const PathCase& c : paths)
  {
    INFO("Max, n " << values.size() << ", path " << static_cast<int>(c.path) << ", max grid " << c.max_grid);
    const Results<T> r = reduce_all(values, c.path, c.max_grid);
    CHECK(positive_zero(r.max));
    CHECK(positive_zero(r.arg_max_value));
    CHECK(r.arg_max_index == static_cast<std::int64_t>(first_negative_zero));
  }
}

TEMPLATE_TEST_CASE("Signed zeros: -0.0 is below +0.0 for Min/ArgMin and Max/ArgMax, first occurrence on ties",
                   "[device][float-semantics]",
                   float,
                   double,
                   __half,
                   __nv_bfloat16)
{
  using T = TestType;
  for (std::size_t n : sizes)
  {
    // Positive numbers, then zeros of both signs somewhere: the minimum is -0.0 (its first occurrence).
    std::vector<T> values = fold_test::nonzero_numbers<T>(n, n + 1);
    for (auto& v : values)
    {
      v = fold_test::from_double<T>(std::fabs(fold_test::to_double(v)));
    }
    const std::size_t pos_zero = n / 5, neg_zero = n / 2, pos_zero_again = n - 2, neg_zero_again = n - 1;
    values[pos_zero]       = fold_test::from_double<T>(0.0);
    values[neg_zero]       = fold_test::from_double<T>(-0.0);
    values[pos_zero_again] = fold_test::from_double<T>(0.0);
    values[neg_zero_again] = fold_test::from_double<T>(-0.0);
    check_signed_zero_extremes(values, neg_zero);
  }
}

TEMPLATE_TEST_CASE("Signed zeros side by side: a vector of both zeros gives -0.0 to Min and +0.0 to Max, either first",
                   "[device][float-semantics]",
                   float,
                   __half,
                   __nv_bfloat16)
{
  // Over 2- and 4-byte items a thread takes its tile's extreme with (packed) min/max, which return either zero
  // where the two meet; the zeros here share a 16-byte vector (so a word, for 2-byte items), in both orders, and
  // no other item is a zero.
  using T = TestType;
  for (std::size_t n : sizes)
  {
    for (const bool negative_first : {true, false})
    {
      INFO("-0.0 first " << negative_first);
      std::vector<T> values = fold_test::nonzero_numbers<T>(n, n + 3);
      for (auto& v : values)
      {
        v = fold_test::from_double<T>(std::fabs(fold_test::to_double(v)));
      }
      const std::size_t pair = n / 3 / 8 * 8; // a vector's first item, for an aligned input
      values[pair]           = fold_test::from_double<T>(negative_first ? -0.0 : 0.0);
      values[pair + 1]       = fold_test::from_double<T>(negative_first ? 0.0 : -0.0);
      check_signed_zero_extremes(values, negative_first ? pair : pair + 1);
    }
  }
}

TEMPLATE_TEST_CASE("Infinities: Min/Max find them, Sum of +inf and -inf is NaN, ties keep the first index",
                   "[device][float-semantics]",
                   float,
                   double,
                   __half,
                   __nv_bfloat16)
{
  using T          = TestType;
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t n : sizes)
  {
    auto values        = fold_test::nonzero_numbers<T>(n, n + 2);
    values[n / 4]      = fold_test::from_double<T>(inf);
    values[n / 3]      = fold_test::from_double<T>(-inf);
    values[n / 2]      = fold_test::from_double<T>(inf);
    values[n - 1]      = fold_test::from_double<T>(-inf);
    const Results<T> r = reduce_all(values, ReducePath::automatic, 0);
    INFO("n " << n);
    CHECK(fold_test::to_double(r.min) == -inf);
    CHECK(fold_test::to_double(r.max) == inf);
    CHECK(r.arg_min_index == static_cast<std::int64_t>(n / 3));
    CHECK(r.arg_max_index == static_cast<std::int64_t>(n / 4));
    CHECK(is_nan(r.sum));
    values[n / 3] = values[n - 1] = fold_test::from_double<T>(0.25);
    CHECK(fold_test::to_double(reduce_all(values, ReducePath::two_pass, 17).sum) == inf);
  }
}

TEST_CASE("Empty input: Min/Max give the identities, ArgMin/ArgMax the identity and index -1, Sum 0",
          "[device][float-semantics]")
{
  const Results<float> r = reduce_all(std::vector<float>{}, ReducePath::automatic, 0);
  CHECK(r.min == std::numeric_limits<float>::infinity());
  CHECK(r.max == -std::numeric_limits<float>::infinity());
  CHECK(r.arg_min_value == std::numeric_limits<float>::infinity());
  CHECK(r.arg_max_value == -std::numeric_limits<float>::infinity());
  CHECK(r.arg_min_index == -1);
  CHECK(r.arg_max_index == -1);
  CHECK(positive_zero(r.sum));
}
