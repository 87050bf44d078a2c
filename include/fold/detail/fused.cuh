// SPDX-License-Identifier: Apache-2.0
//! @file
//! Reductions that give several results in one pass over the items, run by the same dispatch, kernels and agents
//! as every other: two reductions fused into one (`Fused`: MinMax, ArgMinMax), and the mean with the variance
//! (`Moments`, `MergeMoments`: VarMean, a Chan/Welford merge).
#pragma once

#include <fold/detail/extremum.cuh>
#include <fold/detail/order_key.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cmath>
#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Two reductions over the same items run as one: each half of a `Fused` is what one of them has.
//! - the accumulator is a `Fused` of the two accumulators;
//! - the operator is a `Fused` of the two operators, each combining its own half;
//! - the item transform is a `Fused` of the two transforms, each making its half from the item;
//! - the output is a `Fused` of the two outputs, each written from its half (`store_result`).
//! The fused reduction is commutative, and exact, when both halves are.
template <typename FirstT, typename SecondT>
struct Fused
{
  FirstT first;
  SecondT second;

  //! As an operator: each half combined by its own operator.
  template <typename A, typename B>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr Fused<A, B> operator()(const Fused<A, B>& x, const Fused<A, B>& y) const
  {
    return {first(x.first, y.first), second(x.second, y.second)};
  }

  //! As an item transform: `(item, index) -> (first half, second half)`.
  template <typename T, typename OffsetT, typename = std::enable_if_t<std::is_integral_v<OffsetT>>>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE constexpr auto operator()(const T& item, OffsetT i) const
      -> Fused<std::invoke_result_t<const FirstT&, const T&, OffsetT>,
               std::invoke_result_t<const SecondT&, const T&, OffsetT>>
  {
    return {first(item, i), second(item, i)};
  }

  //! As an output: null when either output is.
  bool is_null() const { return detail::is_null(first) || detail::is_null(second); }
};

template <typename OutputT1, typename OutputT2, typename A, typename B>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(Fused<OutputT1, OutputT2> out, const Fused<A, B>& result)
{
  store_result(out.first, result.first);
  store_result(out.second, result.second);
}

template <typename OpT1, typename OpT2>
struct InOrder<Fused<OpT1, OpT2>>
{
  using type = Fused<typename InOrder<OpT1>::type, typename InOrder<OpT2>::type>;
  FOLD_HOST_DEVICE static constexpr type make(const Fused<OpT1, OpT2>& op)
  {
    return {InOrder<OpT1>::make(op.first), InOrder<OpT2>::make(op.second)};
  }
};

template <typename OpT1, typename OpT2, typename A, typename B>
inline constexpr bool is_exact_v<Fused<OpT1, OpT2>, Fused<A, B>> = is_exact_v<OpT1, A>&& is_exact_v<OpT2, B>;

//! `fused_t<T>` is `T`; `fused_t<T1, T2>` is `Fused<T1, T2>`. So that an algorithm written over a pack of
//! reductions (`Min`: one, `MinMax`: two) is the plain one for one.
template <typename... Ts>
struct fused;
template <typename T>
struct fused<T>
{
  using type = T;
};
template <typename T1, typename T2>
struct fused<T1, T2>
{
  using type = Fused<T1, T2>;
};
template <typename... Ts>
using fused_t = typename fused<Ts...>::type;

//! `fuse(x)` is `x`; `fuse(x, y)` is `Fused{x, y}`.
template <typename T>
constexpr T fuse(const T& x)
{
  return x;
}
template <typename T1, typename T2>
constexpr Fused<T1, T2> fuse(const T1& x, const T2& y)
{
  return {x, y};
}

//! `fused_t<ArgOutputT...>` of the outputs of ArgMin/ArgMax reduced as packed pairs: each unpacked by its own
//! `PackedArgReduction` (see `UnpackArg`).
template <typename... PackedT, typename... ArgOutputT>
constexpr auto unpack_outputs(ArgOutputT... out)
{
  return fuse(UnpackArg<ArgOutputT, PackedT>{out}...);
}

} // namespace detail

template <typename OpT1, typename OpT2>
struct is_commutative<detail::Fused<OpT1, OpT2>> : std::bool_constant<is_commutative_v<OpT1> && is_commutative_v<OpT2>>
{
};

namespace detail
{

//! The running moments of VarMean: how many items, their mean and the sum of their squared deviations from it
//! (M2), in `AccT`. `Moments{}` (no items) is the identity of `MergeMoments` for finite moments.
template <typename AccT>
struct Moments
{
  AccT mean;
  AccT m2;
  std::int64_t count;
};

//! What VarMean accumulates items of `T` in: `float` for `__half` and `__nv_bfloat16`, `T` itself otherwise.
template <typename T>
using moments_accum_t = std::conditional_t<is_16bit_float_v<T>, float, T>;

//! `fma(a, b, c)`, one rounding, spelled out: the merge's bits must not depend on whether the compiler contracts
//! a multiply and an add, which may differ between architectures (`fold::gpu_to_gpu`).
template <typename T>
FOLD_HOST_DEVICE FOLD_FORCEINLINE T fused_multiply_add(T a, T b, T c)
{
  if constexpr (std::is_same_v<T, float>)
  {
    return fmaf(a, b, c);
  }
  else
  {
    return fma(a, b, c);
  }
}

//! Chan's merge of two sets' moments (Chan, Golub and LeVeque, 1979): with `n = na + nb`, `d = mean_b - mean_a`,
//! `mean = mean_a + d * nb / n` and `M2 = M2a + M2b + d^2 * na * nb / n`. One item merged into a set is Welford's
//! update. Commutative as arithmetic, but neither commutative nor associative in floating point: DeviceReduce
//! keeps its tree fixed (it is not exact, see `is_exact_v`), so the bits are reproducible all the same. An empty
//! side (`count == 0`, mean and M2 zero) gives the other side's moments exactly, unless they are infinite.
struct MergeMoments
{
  template <typename AccT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE Moments<AccT> operator()(const Moments<AccT>& a, const Moments<AccT>& b) const
  {
    const std::int64_t n = a.count + b.count;
    const AccT delta     = b.mean - a.mean;
    const AccT weight_b  = static_cast<AccT>(b.count) / static_cast<AccT>(n);
    const AccT mean      = fused_multiply_add(delta, weight_b, a.mean);
    const AccT m2        = fused_multiply_add(delta * static_cast<AccT>(a.count), delta * weight_b, a.m2 + b.m2);
    return {mean, m2, n};
  }
};

//! VarMean's item transform: one item's moments (count 1, its value as the mean, M2 zero).
template <typename AccT>
struct ToMoments
{
  template <typename T, typename OffsetT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE Moments<AccT> operator()(const T& item, OffsetT) const
  {
    return {convert<AccT>(item), AccT{0}, 1};
  }
};

//! VarMean's outputs: `M2 / max(n - correction, 0)` to `var`, the mean to `mean` (NaN when `n` is 0), each
//! converted to its output's value type. A divisor of 0 gives NaN for `M2 == 0` and +inf otherwise, as in torch.
//! A mean that is not finite (an infinity or a NaN among the items) gives a NaN variance: where the merge met the
//! infinity last, its M2 is +inf or 0, not NaN. The divisor is computed in double, exact for any count a float
//! divisor would round.
template <typename VarOutputIteratorT, typename MeanOutputIteratorT>
struct VarMeanOutput
{
  VarOutputIteratorT var;
  MeanOutputIteratorT mean;
  double correction;

  bool is_null() const { return detail::is_null(var) || detail::is_null(mean); }
};

template <typename VarOutputIteratorT, typename MeanOutputIteratorT, typename AccT>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(VarMeanOutput<VarOutputIteratorT, MeanOutputIteratorT> out,
                                               const Moments<AccT>& moments)
{
  const double n       = static_cast<double>(moments.count);
  const double divisor = n > out.correction ? n - out.correction : 0.0;
  const bool finite    = moments.mean - moments.mean == AccT{0}; // false for an infinity or a NaN
  store_result(out.var, finite ? moments.m2 / static_cast<AccT>(divisor) : quiet_nan<AccT>());
  store_result(out.mean, moments.count > 0 ? moments.mean : quiet_nan<AccT>());
}

} // namespace detail

template <>
struct is_commutative<detail::MergeMoments> : std::true_type
{
};

FOLD_NAMESPACE_END
