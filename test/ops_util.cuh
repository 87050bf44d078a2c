// SPDX-License-Identifier: Apache-2.0
// Operators and value types for the tests: a non-commutative operator (2x2 matrix products mod a prime), the
// same matrix behind a user-written copy constructor (not trivially copyable: WarpReduce must use shared
// memory), and an index-mixing transform that exposes any wrong index.
#pragma once

#include <fold/util/type_traits.cuh>

#include "test_util.cuh"

#include <cstdint>
#include <vector>

namespace fold_test
{

constexpr std::uint32_t prime = 65521;

//! A 2x2 matrix with entries mod `prime`; products of them do not commute.
struct Mat2
{
  std::uint32_t a, b, c, d;
  friend bool operator==(const Mat2& x, const Mat2& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }
  friend std::ostream& operator<<(std::ostream& os, const Mat2& m)
  {
    return os << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
  }
};

//! Mat2 behind a user-provided copy constructor: not trivially copyable, so it cannot be shuffled.
struct BoxedMat2
{
  Mat2 m;
  BoxedMat2() = default;
  __host__ __device__ BoxedMat2(const Mat2& x)
      : m(x)
  {
  }
  __host__ __device__ BoxedMat2(const BoxedMat2& other)
      : m(other.m)
  {
  }
  __host__ __device__ BoxedMat2& operator=(const BoxedMat2& other)
  {
    m = other.m;
    return *this;
  }
};
static_assert(!fold::is_shuffleable_v<BoxedMat2>);

inline const Mat2& as_matrix(const Mat2& m)
{
  return m;
}
inline const Mat2& as_matrix(const BoxedMat2& m)
{
  return m.m;
}
static_assert(fold::is_shuffleable_v<Mat2>);

struct MatMul
{
  __host__ __device__ Mat2 operator()(const Mat2& x, const Mat2& y) const
  {
    auto mod = [](std::uint64_t v) { return static_cast<std::uint32_t>(v % prime); };
    return {mod(std::uint64_t{x.a} * y.a + std::uint64_t{x.b} * y.c),
            mod(std::uint64_t{x.a} * y.b + std::uint64_t{x.b} * y.d),
            mod(std::uint64_t{x.c} * y.a + std::uint64_t{x.d} * y.c),
            mod(std::uint64_t{x.c} * y.b + std::uint64_t{x.d} * y.d)};
  }
  __host__ __device__ BoxedMat2 operator()(const BoxedMat2& x, const BoxedMat2& y) const
  {
    return BoxedMat2((*this)(x.m, y.m));
  }
};

inline std::vector<Mat2> random_matrices(std::size_t n, std::uint64_t seed)
{
  Random random{seed};
  std::vector<Mat2> m(n);
  for (auto& x : m)
  {
    x = {static_cast<std::uint32_t>(random.between(1, prime - 1)),
         static_cast<std::uint32_t>(random.between(1, prime - 1)),
         static_cast<std::uint32_t>(random.between(1, prime - 1)),
         static_cast<std::uint32_t>(random.between(1, prime - 1))};
  }
  return m;
}

//! The sequential left fold of `values[first, last)`.
inline Mat2 sequential_product(const std::vector<Mat2>& values, std::size_t first, std::size_t last)
{
  Mat2 result = values[first];
  for (std::size_t i = first + 1; i < last; ++i)
  {
    result = MatMul{}(result, values[i]);
  }
  return result;
}

//! `(item, index) -> a 32-bit value that depends on both`: a sum of these is wrong if any index is.
struct IndexMix
{
  template <typename T, typename OffsetT>
  __host__ __device__ std::uint32_t operator()(const T& item, OffsetT index) const
  {
    return static_cast<std::uint32_t>(item) * 2654435761u + static_cast<std::uint32_t>(index) * 40503u + 1u;
  }
};

} // namespace fold_test
