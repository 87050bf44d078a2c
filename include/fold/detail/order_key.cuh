// SPDX-License-Identifier: Apache-2.0
//! @file
//! The order fold's Min, Max, ArgMin and ArgMax put values in: the order of `<` (or `>`), with every NaN first and
//! -0.0 below +0.0; and the order keys that compare floating-point values in it with one integer comparison.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/std/bit>
#include <cuda/std/limits>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Whether `x` is a NaN (false for every non-floating type).
template <typename T>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr bool is_nan(const T& x)
{
  if constexpr (is_16bit_float_v<T>)
  {
    return is_nan(static_cast<float>(x));
  }
  else
  {
    return !(x == x);
  }
}

//! The canonical quiet NaN of `T`: what Min and Max return when the input holds any NaN.
template <typename T>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr T quiet_nan()
{
  return ::cuda::std::numeric_limits<T>::quiet_NaN();
}

//! The type a floating-point `T` is keyed through (16-bit floats through `float`, exactly), and its key.
template <typename T>
using key_float_t = std::conditional_t<is_16bit_float_v<T>, float, T>;
template <typename T>
using order_key_t = std::conditional_t<sizeof(key_float_t<T>) == 8, std::int64_t, std::int32_t>;

//! The key every NaN gets: first in Max's order (`ForMax`), first in Min's otherwise.
template <typename T, bool ForMax>
inline constexpr order_key_t<T> nan_key = ForMax ? ::cuda::std::numeric_limits<order_key_t<T>>::max()
                                                 : ::cuda::std::numeric_limits<order_key_t<T>>::min();

//! Sign-magnitude bits to two's complement and back (it is its own inverse): the magnitude bits flipped where the
//! sign is set. The sign's copies masked to the magnitude (`(bits >> 31) & 0x7fffffff` for 32 bits) are one LOP3 with
//! the xor; shifted down by one instead, nvcc 13.0 spent a second shift on them (3 instructions, not 2, on sm_90).
template <typename KeyT>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr KeyT flip_negative(KeyT bits)
{
  return bits ^ ((bits >> (8 * sizeof(KeyT) - 1)) & ::cuda::std::numeric_limits<KeyT>::max());
}

//! An integer that orders floating-point numbers as `<` does, with -0.0 below +0.0, and every NaN at
//! `nan_key`. Comparing keys is one integer comparison, with no branch on NaNs or zeros.
template <bool ForMax, typename T>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr order_key_t<T> order_key(const T& x)
{
  const key_float_t<T> f = convert<key_float_t<T>>(x);
  return is_nan(f) ? nan_key<T, ForMax> : flip_negative(::cuda::std::bit_cast<order_key_t<T>>(f));
}

//! The `T` whose key is `key`; `nan_key` gives the canonical NaN.
template <typename T, bool ForMax>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr T from_order_key(order_key_t<T> key)
{
  return key == nan_key<T, ForMax> ? quiet_nan<T>()
                                   : convert<T>(::cuda::std::bit_cast<key_float_t<T>>(flip_negative(key)));
}

//! Whether `a` comes strictly before `b` in the order Min and ArgMin use: the order of `<`, with every NaN
//! before every number and -0.0 before +0.0. Two NaNs, or two equal numbers of one sign, are equivalent.
template <typename T>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr bool min_before(const T& a, const T& b)
{
  if constexpr (is_floating_v<T>)
  {
    return order_key<false>(a) < order_key<false>(b);
  }
  else
  {
    return a < b;
  }
}

//! Whether `a` comes strictly before `b` in the order Max and ArgMax use: the order of `>`, with every NaN
//! before every number and +0.0 before -0.0.
template <typename T>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr bool max_before(const T& a, const T& b)
{
  if constexpr (is_floating_v<T>)
  {
    return order_key<true>(a) > order_key<true>(b);
  }
  else
  {
    return b < a;
  }
}

} // namespace detail
FOLD_NAMESPACE_END
