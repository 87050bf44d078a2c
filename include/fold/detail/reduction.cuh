// SPDX-License-Identifier: Apache-2.0
//! @file
//! What a reduction is made of besides its operator, shared by the facades, the kernels and the agents: how the
//! initial value enters (`InitialValue`, `EmptyResult`, `NoInit`), the item transform applied as items are loaded
//! (`CastTo`, `ApplyTransform`), the operator a thread folds its own items with (`InOrder`), and whether any tree
//! gives the same bits (`is_exact_v`).
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda/std/functional>

#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! A reduction with an initial value: the result is `op(init, aggregate)`, and `init` for empty input.
template <typename T>
struct InitialValue
{
  T value;

  template <typename AccumT, typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE AccumT finalize(ReductionOpT op, const AccumT& aggregate) const
  {
    return convert<AccumT>(op(value, aggregate));
  }
  FOLD_DEVICE FOLD_FORCEINLINE const T& empty() const { return value; }
};

//! A reduction without one (ArgMin, ArgMax): the result is the aggregate, and `result` for empty input.
template <typename T>
struct EmptyResult
{
  T result;

  template <typename AccumT, typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE const AccumT& finalize(ReductionOpT, const AccumT& aggregate) const
  {
    return aggregate;
  }
  FOLD_DEVICE FOLD_FORCEINLINE const T& empty() const { return result; }
};

//! No initial value: the result is the aggregate (the intermediate steps of an axis reduction, whose rows are
//! never empty).
template <typename AccumT>
struct NoInit
{
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE const AccumT& finalize(ReductionOpT, const AccumT& aggregate) const
  {
    return aggregate;
  }
  FOLD_DEVICE FOLD_FORCEINLINE AccumT empty() const { return AccumT{}; }
};

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

//! The operator a thread uses to fold in its own items. A thread meets its items in increasing index order,
//! so for ArgMin/ArgMax a strict comparison already keeps the first occurrence: no key comparison per item.
//! Every other operator is used as it is.
template <typename ReductionOpT>
struct InOrder
{
  using type = ReductionOpT;
  FOLD_HOST_DEVICE static constexpr const ReductionOpT& make(const ReductionOpT& op) { return op; }
};

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

//! Whether a kernel may fold stand-in items with `op` over `AccumT` (where a run is empty, another run's items) and
//! drop the result, so that no branch stands between its loads and its folds (see `fold_slot`): the exact reductions
//! above and fold's `Sum` over primitive types, all pure and defined for any value. A user's operator, or fold's over
//! a user's type, is applied to each segment's own items alone.
template <typename ReductionOpT, typename AccumT>
inline constexpr bool folds_dropped_items_v =
    is_exact_v<ReductionOpT, AccumT> || (std::is_same_v<ReductionOpT, Sum> && is_primitive_v<AccumT>);

} // namespace detail
FOLD_NAMESPACE_END
