// SPDX-License-Identifier: Apache-2.0
//! @file
//! Type traits shared by every layer: iterator value types, 16-bit floats, vectorisable and shuffle-able types.
#pragma once

#include <fold/util/macros.cuh>

#include <cuda/std/iterator>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN

//! True for the 16-bit floating-point types `__half` and `__nv_bfloat16`.
template <typename T>
inline constexpr bool is_16bit_float_v =
    std::is_same_v<std::remove_cv_t<T>, __half> || std::is_same_v<std::remove_cv_t<T>, __nv_bfloat16>;

//! True for the floating-point types fold knows: `float`, `double`, `__half`, `__nv_bfloat16`.
template <typename T>
inline constexpr bool is_floating_v = std::is_floating_point_v<std::remove_cv_t<T>> || is_16bit_float_v<T>;

//! True for the types fold treats as primitive: arithmetic types and the 16-bit floats. Input of a primitive
//! type read through a raw pointer may be loaded with 16-byte vector loads.
template <typename T>
inline constexpr bool is_primitive_v = std::is_arithmetic_v<std::remove_cv_t<T>> || is_16bit_float_v<T>;

//! Whether WarpReduce may move a `T` between lanes with register shuffles. Shuffles copy the object
//! representation, so the type must be trivially copyable; beyond 32 bytes the shared-memory path is cheaper.
//! Specialise it to `std::false_type` to force the shared-memory path for a type of your own.
template <typename T>
struct is_shuffleable : std::bool_constant<std::is_trivially_copyable_v<T> && sizeof(T) <= 32>
{
};

template <typename T>
inline constexpr bool is_shuffleable_v = is_shuffleable<T>::value;

//! The largest item count the device-wide algorithms take: 2^63 - 1, the largest `int64_t` (cub's count type).
//! A larger unsigned count is rejected with `cudaErrorInvalidValue`, so that no offset arithmetic can wrap.
inline constexpr std::uint64_t max_num_items = static_cast<std::uint64_t>(INT64_MAX);

namespace detail
{

//! The value type of an iterator (the pointee of a pointer), without cv-qualifiers.
template <typename IteratorT>
using value_t = std::remove_cv_t<typename ::cuda::std::iterator_traits<IteratorT>::value_type>;

//! The value type of an output iterator, or `FallbackT` when it has none (`void`, as for many output iterators).
template <typename IteratorT, typename FallbackT>
using non_void_value_t = std::conditional_t<std::is_void_v<value_t<IteratorT>>, FallbackT, value_t<IteratorT>>;

//! The accumulator of a reduction: what `op(init, item)` returns, as CUB defines it.
template <typename ReductionOpT, typename InitT, typename ItemT>
using accumulator_t = std::decay_t<std::invoke_result_t<ReductionOpT, const InitT&, const ItemT&>>;

//! The value a 16-bit float sums in: `float`; every other type sums in itself.
template <typename T>
using sum_init_t = std::conditional_t<is_16bit_float_v<T>, float, T>;

//! `static_cast<To>(x)`, going through `float` where one side is a 16-bit float and the other is not `float`
//! (`__half` converts to many types, so a direct cast to, say, `double` is ambiguous).
template <typename To, typename From>
__host__ __device__ constexpr To convert(const From& x)
{
  if constexpr (is_16bit_float_v<From> && !is_16bit_float_v<To> && !std::is_same_v<To, float> &&
                std::is_arithmetic_v<To>)
  {
    return static_cast<To>(static_cast<float>(x));
  }
  else if constexpr (is_16bit_float_v<To> && !is_16bit_float_v<From> && !std::is_same_v<From, float> &&
                     std::is_arithmetic_v<From>)
  {
    return To(static_cast<float>(x));
  }
  else
  {
    return static_cast<To>(x);
  }
}

//! Whether items of `InputIteratorT` may be read with vector loads: raw pointers to primitive types.
template <typename InputIteratorT>
inline constexpr bool is_vectorizable_input_v =
    std::is_pointer_v<InputIteratorT>&& is_primitive_v<value_t<InputIteratorT>>;

//! Enables the two-output ArgMin/ArgMax for an index output that is not a number and a count that is an integer,
//! so that a call of the single-output form, `(..., d_in, d_out, num_items, stream)` or `(..., num_items, 0)`,
//! never deduces the two-output one.
template <typename IndexOutIteratorT, typename NumItemsT>
using two_output_arg_t = std::enable_if_t<!std::is_arithmetic_v<IndexOutIteratorT> && std::is_integral_v<NumItemsT>>;

//! The offset type the kernels index with: 32-bit for counts of up to 4 bytes, 64-bit otherwise.
template <typename NumItemsT>
using offset_t = std::conditional_t<(sizeof(NumItemsT) <= 4), std::uint32_t, std::uint64_t>;

} // namespace detail
FOLD_NAMESPACE_END
