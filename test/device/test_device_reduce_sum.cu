// SPDX-License-Identifier: Apache-2.0
// DeviceReduce::Sum over every type at every size class, against cub::DeviceReduce and a host reference:
// integers exactly (wrapping as the accumulator does), floats exactly on data whose sums are exact and within
// a derived bound on random reals. 16-bit floats sum in float; cub is asked for the same (TransformReduce to
// float) so that the two compute the same thing.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <cstdint>
#include <vector>

namespace
{
struct ToFloat
{
  template <typename T>
  __host__ __device__ float operator()(const T& x) const
  {
    return static_cast<float>(x);
  }
};

//! cub's sum of the same input, in the type fold's result is compared in.
template <typename T>
auto cub_sum(const T* d_in, std::size_t n)
{
  if constexpr (fold::is_16bit_float_v<T>)
  {
    fold_test::DeviceBuffer<float> d_out(1);
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        {
          return cub::DeviceReduce::TransformReduce(
              temp, bytes, d_in, d_out.get(), n, ::cuda::std::plus<float>{}, ToFloat{}, 0.0f);
        });
    return T(d_out.front());
  }
  else
  {
    fold_test::DeviceBuffer<T> d_out(1);
    fold_test::two_call([&](void* temp, std::size_t& bytes)
                        { return cub::DeviceReduce::Sum(temp, bytes, d_in, d_out.get(), n); });
    return d_out.front();
  }
}

template <typename T>
T fold_sum(const T* d_in, std::size_t n)
{
  fold_test::DeviceBuffer<T> d_out(1);
  d_out.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::Sum(temp, bytes, d_in, d_out.get(), n); });
  return d_out.front();
}

//! The wrapped integer sum, as fold's (and cub's) accumulator computes it and the output type stores it.
template <typename T>
T integer_reference(const std::vector<T>& values)
{
  std::uint64_t sum = 0;
  for (const T& v : values)
  {
    sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  }
  return static_cast<T>(sum);
}
} // namespace

TEMPLATE_LIST_TEST_CASE("Sum of integers is exact and equals cub", "[device][sum]", fold_test::Integers)
{
  using T = TestType;
  for (std::size_t n : fold_test::test_sizes(
           fold_test::tile_items<fold::Sum, T, fold::detail::accumulator_t<fold::Sum, T, T>>(), sizeof(T)))
  {
    INFO("n " << n);
    const auto values = fold_test::random_values<T>(n, n + 1, fold_test::Values::full_range);
    fold_test::DeviceBuffer<T> d_in(values);
    const T expected = integer_reference(values);
    CHECK(fold_sum(d_in.get(), n) == expected);
    if (n > 0)
    {
      CHECK(cub_sum(d_in.get(), n) == expected);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("Sum of floats on small integers is exact: equal to the host's and cub's, bit for bit",
                        "[device][sum]",
                        fold_test::Floats)
{
  using T = TestType;
  for (std::size_t n :
       fold_test::test_sizes(fold_test::tile_items<fold::Sum, T, fold::detail::sum_init_t<T>>(), 3 * sizeof(T)))
  {
    if (n > (1u << 22)) // 4 * 2^22 = 2^24: up to here every partial sum is exact in float
    {
      continue;
    }
    INFO("n " << n);
    const auto values = fold_test::random_values<T>(n, n + 5, fold_test::Values::small);
    fold_test::DeviceBuffer<T> d_in(values);
    const T expected = fold_test::from_double<T>(fold_test::sum_reference(values).sum);
    const T result   = fold_sum(d_in.get(), n);
    INFO("fold " << fold_test::to_double(result) << ", expected " << fold_test::to_double(expected));
    CHECK(fold_test::same_bits(result, expected));
    if (n > 0)
    {
      CHECK(fold_test::same_bits(cub_sum(d_in.get(), n), expected));
    }
  }
}

TEMPLATE_LIST_TEST_CASE("Sum of random reals is within the error bound of a double reference, as is cub's",
                        "[device][sum]",
                        fold_test::Floats)
{
  using T      = TestType;
  using AccumT = fold::detail::sum_init_t<T>;
  for (std::size_t n :
       fold_test::test_sizes(fold_test::tile_items<fold::Sum, T, fold::detail::sum_init_t<T>>(), 5 * sizeof(T)))
  {
    INFO("n " << n);
    const auto values = fold_test::random_values<T>(n, n + 7, fold_test::Values::full_range);
    fold_test::DeviceBuffer<T> d_in(values);
    const auto reference = fold_test::sum_reference(values);
    const double bound   = fold_test::sum_error_bound<AccumT, T, T>(n, reference);
    const double result  = fold_test::to_double(fold_sum(d_in.get(), n));
    INFO("fold " << result << ", reference " << reference.sum << ", bound " << bound);
    CHECK(std::fabs(result - reference.sum) <= bound);
    if (n > 0)
    {
      const double cub = fold_test::to_double(cub_sum(d_in.get(), n));
      INFO("cub " << cub);
      CHECK(std::fabs(cub - reference.sum) <= bound);
    }
  }
}
