// SPDX-License-Identifier: Apache-2.0
//! @file
//! Min, Max, ArgMin and ArgMax as the facades run them (`ExtremumReduction`): the values carried as order keys or
//! widened integers, the identities, the (index, value) pairs, and ArgMin/ArgMax's packed pairs
//! (`PackedArgReduction`). Shared by DeviceReduce and DeviceSegmentedReduce.
#pragma once

#include <fold/detail/order_key.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/std/limits>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

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

//! Whether `TransformOpT` is `PairWithIndex`: each pair's index is the one the kernel passes, counted from the first
//! item of the range (a segment's, where a kernel reduces segments), never an index the items carry.
template <typename TransformOpT>
inline constexpr bool pairs_with_index_v = false;
template <typename ValuesT>
inline constexpr bool pairs_with_index_v<PairWithIndex<ValuesT>> = true;

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
template <typename T, bool ForMax>
struct PackArg;

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
  using Pack = PackArg<T, ForMax>;

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

//! `PackedArgReduction<T, ForMax>`'s item transform: `(item, index) -> packed pair`; `index < max_items`. A type
//! of its own (not a member of `PackedArgReduction`), so that the agents can recognise it (`TileFold`).
template <typename T, bool ForMax>
struct PackArg
{
  using Reduction = PackedArgReduction<T, ForMax>;

  template <typename U, typename OffsetT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE typename Reduction::PackedPair operator()(const U& item, OffsetT i) const
  {
    return pack(Reduction::rank(typename Reduction::Values{}(item)), i);
  }

  //! The packed pair of rank `r` at index `i`.
  template <typename OffsetT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE static constexpr typename Reduction::PackedPair pack(typename Reduction::RankT r,
                                                                                         OffsetT i)
  {
    const std::uint32_t index_complement = ~static_cast<std::uint32_t>(i);
    if constexpr (sizeof(typename Reduction::RankT) == 4)
    {
      return (static_cast<std::uint64_t>(r) << 32) | index_complement;
    }
    else
    {
      return {index_complement, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r >> 32)};
    }
  }
};

} // namespace detail
FOLD_NAMESPACE_END
