// SPDX-License-Identifier: Apache-2.0
//! @file
//! The inclusive scan of one value per lane across a warp, for any associative operator: no identity is needed
//! and the operands keep lane order, so the operator need not be commutative.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/warp/warp_reduce.cuh>

#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Lane `i` gets `x0 op x1 op ... op xi` (Kogge-Stone: five shuffle steps, the grouping fixed by the lane alone,
//! so the same values always give the same bits). Every lane of the warp must call it.
template <typename T, typename ScanOpT>
FOLD_DEVICE FOLD_FORCEINLINE T warp_inclusive_scan(T value, ScanOpT op)
{
  static_assert(std::is_trivially_copyable_v<T>, "warp_inclusive_scan: the value type must be trivially copyable");
  const int lane = static_cast<int>(threadIdx.x) % 32;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2)
  {
    const T lower = shuffle_up(value, offset);
    if (lane >= offset)
    {
      value = op(lower, value);
    }
  }
  return value;
}

} // namespace detail
FOLD_NAMESPACE_END
