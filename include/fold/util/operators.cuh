// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction operators fold provides, the key-value pair the arg-reductions produce, and the identities of
//! min and max.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/functional>
#include <cuda/std/bit>
#include <cuda/std/functional>
#include <cuda/std/limits>

#include <cstdint>
#include <type_traits>

namespace fold
{

//! A value and the position (key) it was found at; what ArgMin/ArgMax reduce.
template <typename KeyT, typename ValueT>
struct KeyValuePair
{
  KeyT key;
  ValueT value;
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

//! Sign-magnitude bits to two's complement and back (it is its own inverse).
template <typename KeyT>
FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr KeyT flip_negative(KeyT bits)
{
  using Unsigned = std::make_unsigned_t<KeyT>;
  return bits ^ static_cast<KeyT>(static_cast<Unsigned>(bits >> (8 * sizeof(KeyT) - 1)) >> 1);
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

//! The 32-bit integer an integer narrower than 32 bits is carried in (of the same signedness); any other type as
//! it is.
template <typename T>
using widened_t = std::conditional_t<(std::is_integral_v<T> && sizeof(T) < 4),
                                     std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>,
                                     T>;

//! How DeviceReduce's Min, Max, ArgMin and ArgMax carry the values of a `T` through the kernels: integers as
//! they are, those narrower than 32 bits widened to 32 (1- and 2-byte accumulators made int8 Min spill 392
//! bytes at 64 registers, and none with 32-bit ones); floating-point values as their `order_key` (one integer
//! comparison per item, where comparing the values in fold's order takes several), turned back into values
//! when written (`from_order_key`).
template <typename T, bool ForMax>
struct ExtremumValues
{
  static constexpr bool keyed = is_floating_v<T>;
  using type                  = std::conditional_t<keyed, order_key_t<T>, widened_t<T>>;

  template <typename U>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr type operator()(const U& item) const
  {
    if constexpr (keyed)
    {
      return order_key<ForMax>(convert<T>(item));
    }
    else
    {
      return convert<T>(item);
    }
  }
};
} // namespace detail

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

namespace detail
{
//! Whether `op` over `AccumT` gives the same bits in any order and any grouping of its operands: integer sums
//! and bitwise operations (modular arithmetic), and fold's Min, Max, ArgMin and ArgMax over primitive types
//! (their order puts NaNs and signed zeros in fixed places, see `Min`). Such
//! reductions need no fixed reduction tree to be reproducible, so their grid is free; every other reduction
//! (floating-point sums, user operators) is cut into fixed units whatever the grid (see `ReducePlan`).
template <typename ReductionOpT, typename AccumT>
inline constexpr bool is_exact_v = false;
template <typename AccumT>
inline constexpr bool is_exact_v<Sum, AccumT> = std::is_integral_v<AccumT>;
template <typename T, typename AccumT>
inline constexpr bool is_exact_v<::cuda::std::plus<T>, AccumT> = std::is_integral_v<AccumT>;
template <typename T, typename AccumT>
inline constexpr bool is_exact_v<::cuda::std::bit_and<T>, AccumT> = std::is_integral_v<AccumT>;
template <typename T, typename AccumT>
inline constexpr bool is_exact_v<::cuda::std::bit_or<T>, AccumT> = std::is_integral_v<AccumT>;
template <typename T, typename AccumT>
inline constexpr bool is_exact_v<::cuda::std::bit_xor<T>, AccumT> = std::is_integral_v<AccumT>;
template <typename AccumT>
inline constexpr bool is_exact_v<Min, AccumT> = is_primitive_v<AccumT>;
template <typename AccumT>
inline constexpr bool is_exact_v<Max, AccumT> = is_primitive_v<AccumT>;
template <typename K, typename V>
inline constexpr bool is_exact_v<ArgMin, KeyValuePair<K, V>> = is_primitive_v<V>&& std::is_integral_v<K>;
template <typename K, typename V>
inline constexpr bool is_exact_v<ArgMax, KeyValuePair<K, V>> = is_primitive_v<V>&& std::is_integral_v<K>;
} // namespace detail

namespace detail
{
//! The operator a thread uses to fold in its own items. A thread meets its items in increasing index order,
//! so for ArgMin/ArgMax a strict comparison already keeps the first occurrence: no key comparison per item.
//! Every other operator is used as it is.
template <typename ReductionOpT>
struct InOrder
{
  using type = ReductionOpT;
  FOLD_HOST_DEVICE static constexpr const ReductionOpT& make(const ReductionOpT& op) { return op; }
};

struct ArgMinInOrder
{
  template <typename K, typename V>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr KeyValuePair<K, V> operator()(const KeyValuePair<K, V>& earlier,
                                                                            const KeyValuePair<K, V>& later) const
  {
    return min_before(later.value, earlier.value) ? later : earlier;
  }
};

struct ArgMaxInOrder
{
  template <typename K, typename V>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr KeyValuePair<K, V> operator()(const KeyValuePair<K, V>& earlier,
                                                                            const KeyValuePair<K, V>& later) const
  {
    return max_before(later.value, earlier.value) ? later : earlier;
  }
};

template <>
struct InOrder<ArgMin>
{
  using type = ArgMinInOrder;
  FOLD_HOST_DEVICE static constexpr type make(const ArgMin&) { return {}; }
};

template <>
struct InOrder<ArgMax>
{
  using type = ArgMaxInOrder;
  FOLD_HOST_DEVICE static constexpr type make(const ArgMax&) { return {}; }
};

//! The identity of `Min` over `T`: +infinity for floating types, the largest value otherwise.
template <typename T>
FOLD_HOST_DEVICE constexpr T min_identity()
{
  if constexpr (is_floating_v<T>)
  {
    return ::cuda::std::numeric_limits<T>::infinity();
  }
  else
  {
    return ::cuda::std::numeric_limits<T>::max();
  }
}

//! The identity of `Max` over `T`: -infinity for floating types, the lowest value otherwise.
template <typename T>
FOLD_HOST_DEVICE constexpr T max_identity()
{
  if constexpr (is_floating_v<T>)
  {
    return -::cuda::std::numeric_limits<T>::infinity();
  }
  else
  {
    return ::cuda::std::numeric_limits<T>::lowest();
  }
}

//! The item transform the kernels apply as they load: `(item, global index) -> value to reduce`.
//! `CastTo` reduces the items as they are (converted to the accumulator).
template <typename AccumT>
struct CastTo
{
  template <typename T, typename OffsetT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE AccumT operator()(const T& item, OffsetT) const
  {
    return detail::convert<AccumT>(item);
  }
};

//! Wraps a user's unary transform (TransformReduce) so that it ignores the index.
template <typename AccumT, typename TransformOpT>
struct ApplyTransform
{
  TransformOpT op;
  template <typename T, typename OffsetT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE AccumT operator()(const T& item, OffsetT) const
  {
    return detail::convert<AccumT>(op(item));
  }
};

//! Pairs each item, as `ValuesT` carries it (see `ExtremumValues`), with its global index, for ArgMin and ArgMax.
template <typename ValuesT>
struct PairWithIndex
{
  template <typename T, typename OffsetT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE KeyValuePair<std::int64_t, typename ValuesT::type> operator()(const T& item,
                                                                                                  OffsetT i) const
  {
    return {static_cast<std::int64_t>(i), ValuesT{}(item)};
  }
};

//! Min and Max (`ForMax`) over items of `T` as the facades run them: fold's operator over the values as
//! `ExtremumValues` carries them (order keys for floating-point items), its identity, and ArgMin/ArgMax's
//! (index, value) pairs. Shared by DeviceReduce and DeviceSegmentedReduce.
template <typename T, bool ForMax>
struct ExtremumReduction
{
  using Values  = ExtremumValues<T, ForMax>;
  using AccumT  = typename Values::type;
  using PairT   = KeyValuePair<std::int64_t, AccumT>;
  using Op      = std::conditional_t<ForMax, Max, Min>;
  using ArgOp   = std::conditional_t<ForMax, ArgMax, ArgMin>;
  using ToValue = ApplyTransform<AccumT, Values>;
  using ToPair  = PairWithIndex<Values>;

  static constexpr AccumT identity() { return Values{}(ForMax ? max_identity<T>() : min_identity<T>()); }
  //! ArgMin/ArgMax's result for empty input: index -1 and the identity.
  static constexpr PairT empty_pair() { return {-1, identity()}; }
};

//! A packed ArgMin/ArgMax pair of a 64-bit value (see `PackedArgReduction`): the value's rank in two 32-bit words
//! above the index's complement, ordered as the 96-bit number `rank_high:rank_low:index_complement`. Three
//! 4-byte words, so a warp step shuffles three words where an (int64 index, 64-bit value) pair shuffles four.
struct PackedPair96
{
  std::uint32_t index_complement;
  std::uint32_t rank_low;
  std::uint32_t rank_high;

  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr std::uint64_t rank() const
  {
    return (static_cast<std::uint64_t>(rank_high) << 32) | rank_low;
  }
};

//! The operator of ArgMin/ArgMax's packed pairs (see `PackedArgReduction`): the larger packed pair, so the higher
//! rank, and between equal ranks the smaller index.
struct PackedArgMax
{
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const
  {
    return a < b ? b : a;
  }
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr PackedPair96 operator()(const PackedPair96& a,
                                                                      const PackedPair96& b) const
  {
    const std::uint64_t rank_a = a.rank(), rank_b = b.rank();
    return rank_a < rank_b || (rank_a == rank_b && a.index_complement < b.index_complement) ? b : a;
  }
};

//! How a thread folds in its own packed pairs: they come in increasing index order, so a later pair wins only
//! with a higher rank: the ranks alone are compared (the upper 32 bits of a `uint64_t` pair, the 64-bit rank of
//! a `PackedPair96`).
struct PackedArgMaxInOrder
{
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr std::uint64_t operator()(std::uint64_t earlier, std::uint64_t later) const
  {
    return static_cast<std::uint32_t>(later >> 32) > static_cast<std::uint32_t>(earlier >> 32) ? later : earlier;
  }
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr PackedPair96 operator()(const PackedPair96& earlier,
                                                                      const PackedPair96& later) const
  {
    return later.rank() > earlier.rank() ? later : earlier;
  }
};

template <>
struct InOrder<PackedArgMax>
{
  using type = PackedArgMaxInOrder;
  FOLD_HOST_DEVICE static constexpr type make(const PackedArgMax&) { return {}; }
};

template <>
inline constexpr bool is_exact_v<PackedArgMax, std::uint64_t> = true;
template <>
inline constexpr bool is_exact_v<PackedArgMax, PackedPair96> = true;
} // namespace detail

template <>
struct is_commutative<detail::PackedArgMax> : std::true_type
{
};

namespace detail
{
//! ArgMin and ArgMax over inputs of at most 2^32 items, as packed pairs: each (index, value) pair, the value as
//! `ExtremumValues` carries it, becomes the value's rank (a higher rank comes first in the operator's order)
//! above the index's complement (so the smaller index wins a tie). Values of up to 32 bits pack into one
//! `uint64_t`, 64-bit ones (double, 64-bit integers) into a `PackedPair96`. The arg-reduction is then
//! `PackedArgMax`, the larger packed pair: exact and commutative like the pairs', with one integer comparison
//! per item and fewer shuffles per warp step (two for a `uint64_t`, three for a `PackedPair96`, where a 16-byte
//! pair takes four); `uint64_t` partials are loaded as vectors by pass 2.
template <typename T, bool ForMax>
struct PackedArgReduction
{
  using Op     = PackedArgMax;
  using Values = typename ExtremumReduction<T, ForMax>::Values;
  using ValueT = typename Values::type;
  using PairT  = typename ExtremumReduction<T, ForMax>::PairT; //!< what a packed pair unpacks to

  static constexpr bool applies            = std::is_integral_v<ValueT> && sizeof(ValueT) <= 8;
  static constexpr std::uint64_t max_items = std::uint64_t{1} << 32;

  //! The rank: 32 bits for values of up to 32 bits, 64 otherwise.
  using RankT = std::conditional_t<sizeof(ValueT) <= 4, std::uint32_t, std::uint64_t>;
  //! One packed pair: a `uint64_t` for values of up to 32 bits, a `PackedPair96` for 64-bit ones.
  using PackedPair                = std::conditional_t<sizeof(ValueT) <= 4, std::uint64_t, PackedPair96>;
  static constexpr RankT sign_bit = RankT{1} << (8 * sizeof(RankT) - 1);

  //! A number that orders values as the operator does: higher first. Signed values (sign-extended) get their
  //! sign bit flipped, so that unsigned order is their order; ArgMin's ranks are complemented.
  FOLD_HOST_DEVICE FOLD_FORCEINLINE static constexpr RankT rank(ValueT v)
  {
    RankT r = static_cast<RankT>(v);
    if constexpr (std::is_signed_v<ValueT>)
    {
      r = static_cast<RankT>(static_cast<std::make_signed_t<RankT>>(v)) ^ sign_bit;
    }
    return ForMax ? r : static_cast<RankT>(~r);
  }

  //! The value of rank `r`.
  FOLD_HOST_DEVICE FOLD_FORCEINLINE static constexpr ValueT unrank(RankT r)
  {
    r = ForMax ? r : static_cast<RankT>(~r);
    if constexpr (std::is_signed_v<ValueT>)
    {
      return static_cast<ValueT>(static_cast<std::make_signed_t<RankT>>(r ^ sign_bit));
    }
    else
    {
      return static_cast<ValueT>(r);
    }
  }

  //! The item transform: `(item, index) -> packed pair`; `index < max_items`.
  struct Pack
  {
    template <typename U, typename OffsetT>
    FOLD_HOST_DEVICE FOLD_FORCEINLINE PackedPair operator()(const U& item, OffsetT i) const
    {
      const RankT r                        = rank(Values{}(item));
      const std::uint32_t index_complement = ~static_cast<std::uint32_t>(i);
      if constexpr (sizeof(RankT) == 4)
      {
        return (static_cast<std::uint64_t>(r) << 32) | index_complement;
      }
      else
      {
        return {index_complement, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r >> 32)};
      }
    }
  };

  FOLD_HOST_DEVICE FOLD_FORCEINLINE static constexpr PairT unpack(const PackedPair& packed)
  {
    if constexpr (sizeof(RankT) == 4)
    {
      return {static_cast<std::int64_t>(~static_cast<std::uint32_t>(packed)),
              unrank(static_cast<std::uint32_t>(packed >> 32))};
    }
    else
    {
      return {static_cast<std::int64_t>(~packed.index_complement), unrank(packed.rank())};
    }
  }
};

} // namespace detail
} // namespace fold
