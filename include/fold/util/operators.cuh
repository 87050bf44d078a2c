// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction operators fold provides, the key-value pair the arg-reductions produce, and `is_commutative`,
//! which says which operators may see their operands in any order.
#pragma once

#include <fold/detail/order_key.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/functional>
#include <cuda/std/functional>

#include <type_traits>

FOLD_NAMESPACE_BEGIN

//! A value and the position (key) it was found at; what ArgMin/ArgMax reduce.
template <typename KeyT, typename ValueT>
struct KeyValuePair
{
  KeyT key;
  ValueT value;

  //! As cub's: both members equal (`==` on each).
  FOLD_HOST_DEVICE FOLD_FORCEINLINE bool operator==(const KeyValuePair& other) const
  {
    return key == other.key && value == other.value;
  }
  FOLD_HOST_DEVICE FOLD_FORCEINLINE bool operator!=(const KeyValuePair& other) const { return !(*this == other); }
};

namespace detail
{
// The result of `Sum{}(a, b)`: a 16-bit float meets a wider float in that float; two 16-bit floats add in their
// own type; everything else follows the built-in `a + b` (so `int8 + int8` is `int`, as in CUB).
template <typename A, typename B, typename = void>
struct sum_result
{
  using type = decltype(std::declval<const A&>() + std::declval<const B&>());
};
template <typename A, typename B>
struct sum_result<A, B, std::enable_if_t<is_16bit_float_v<A> != is_16bit_float_v<B>>>
{
  using Other = std::conditional_t<is_16bit_float_v<A>, B, A>;
  using type  = std::conditional_t<std::is_floating_point_v<Other>, Other, float>;
};
template <typename A, typename B>
using sum_result_t = std::decay_t<typename sum_result<A, B>::type>;
} // namespace detail

//! `a + b`. Mixed 16-bit and wider floats add in the wider type, which is what lets `Sum` over `__half`
//! accumulate in `float`.
struct Sum
{
  template <typename A, typename B>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr detail::sum_result_t<A, B> operator()(const A& a, const B& b) const
  {
    using R = detail::sum_result_t<A, B>;
    return detail::convert<R>(a) + detail::convert<R>(b);
  }
};

//! The smaller of `a` and `b`. For floating-point types: a NaN if either is a NaN (the canonical quiet NaN, so
//! that the result does not depend on which NaN came first), and -0.0 is smaller than +0.0 (IEEE 754-2019
//! `minimum`). Exact: the same bits in any order and grouping.
struct Min
{
  template <typename T>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr T operator()(const T& a, const T& b) const
  {
    if constexpr (is_floating_v<T>)
    {
      if (detail::is_nan(a) || detail::is_nan(b))
      {
        return detail::quiet_nan<T>();
      }
    }
    return detail::min_before(b, a) ? b : a;
  }
};

//! The larger of `a` and `b`. For floating-point types: a NaN if either is a NaN (the canonical quiet NaN), and
//! +0.0 is larger than -0.0 (IEEE 754-2019 `maximum`). Exact: the same bits in any order and grouping.
struct Max
{
  template <typename T>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr T operator()(const T& a, const T& b) const
  {
    if constexpr (is_floating_v<T>)
    {
      if (detail::is_nan(a) || detail::is_nan(b))
      {
        return detail::quiet_nan<T>();
      }
    }
    return detail::max_before(b, a) ? b : a;
  }
};

//! The pair whose value comes first in Min's order (a NaN before any number, -0.0 before +0.0); between
//! equivalent values the smaller key, so the first occurrence wins in any order. The value returned is an
//! input's, NaN payload included.
struct ArgMin
{
  template <typename K, typename V>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr KeyValuePair<K, V> operator()(const KeyValuePair<K, V>& a,
                                                                            const KeyValuePair<K, V>& b) const
  {
    return (detail::min_before(b.value, a.value) || (!detail::min_before(a.value, b.value) && b.key < a.key)) ? b : a;
  }
};

//! The pair whose value comes first in Max's order (a NaN before any number, +0.0 before -0.0); between
//! equivalent values the smaller key, so the first occurrence wins in any order.
struct ArgMax
{
  template <typename K, typename V>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr KeyValuePair<K, V> operator()(const KeyValuePair<K, V>& a,
                                                                            const KeyValuePair<K, V>& b) const
  {
    return (detail::max_before(b.value, a.value) || (!detail::max_before(a.value, b.value) && b.key < a.key)) ? b : a;
  }
};

//! Whether `ReductionOpT` is commutative: `op(a, b) == op(b, a)`. DeviceReduce reduces with a commutative
//! operator on its fastest path (each thread folds items strided across the tile); with any other operator it
//! keeps the order of the items (each thread folds a contiguous run, and every combination is in index order),
//! which costs a little bandwidth.
//!
//! True for fold's operators (Sum, Min, Max, ArgMin, ArgMax), for `Commutative<Op>` (what `fold::commutative`
//! returns), for `cuda::std::plus`, `multiplies`, `bit_and`, `bit_or`, `bit_xor` (and so `thrust::plus` and
//! friends, which are the same types) and for `cuda::minimum`, `cuda::maximum`. Declare an operator of your own
//! commutative with `fold::commutative(op)` at the call, or once for its type by specialising this trait:
//! @code
//! template <> struct fold::is_commutative<MyOp> : std::true_type {};
//! @endcode
template <typename ReductionOpT>
struct is_commutative : std::false_type
{
};

template <typename ReductionOpT>
inline constexpr bool is_commutative_v = is_commutative<std::remove_cv_t<ReductionOpT>>::value;

// clang-format off
template <> struct is_commutative<Sum> : std::true_type {};
template <> struct is_commutative<Min> : std::true_type {};
template <> struct is_commutative<Max> : std::true_type {};
template <> struct is_commutative<ArgMin> : std::true_type {};
template <> struct is_commutative<ArgMax> : std::true_type {};
template <typename T> struct is_commutative<::cuda::std::plus<T>> : std::true_type {};
template <typename T> struct is_commutative<::cuda::std::multiplies<T>> : std::true_type {};
template <typename T> struct is_commutative<::cuda::std::bit_and<T>> : std::true_type {};
template <typename T> struct is_commutative<::cuda::std::bit_or<T>> : std::true_type {};
template <typename T> struct is_commutative<::cuda::std::bit_xor<T>> : std::true_type {};
template <typename T> struct is_commutative<::cuda::minimum<T>> : std::true_type {};
template <typename T> struct is_commutative<::cuda::maximum<T>> : std::true_type {};
// clang-format on

//! A user's operator declared commutative (see `is_commutative`); calls it unchanged.
template <typename ReductionOpT>
struct Commutative
{
  ReductionOpT op;

  template <typename A, typename B>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr auto operator()(const A& a, const B& b) const -> decltype(op(a, b))
  {
    return op(a, b);
  }
};

template <typename ReductionOpT>
struct is_commutative<Commutative<ReductionOpT>> : std::true_type
{
};

//! `reduction_op` declared commutative: DeviceReduce may combine its operands in any order, on its fastest
//! path. Only for operators that really are commutative; a non-commutative one gives wrong results.
template <typename ReductionOpT>
FOLD_HOST_DEVICE constexpr Commutative<ReductionOpT> commutative(ReductionOpT reduction_op)
{
  return {reduction_op};
}

FOLD_NAMESPACE_END
