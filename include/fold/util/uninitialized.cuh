// SPDX-License-Identifier: Apache-2.0
//! @file
//! Raw, suitably aligned storage for `N` objects of a type that need not be trivially constructible, so that
//! any accumulator type can live in `__shared__` memory or in temporary storage; and the aligned slots of items
//! that one vector load reads.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <new>

FOLD_NAMESPACE_BEGIN
namespace detail
{

template <typename T, int N>
struct Uninitialized
{
  alignas(T) unsigned char bytes[sizeof(T) * N];

  FOLD_HOST_DEVICE FOLD_FORCEINLINE T* data() { return reinterpret_cast<T*>(bytes); }
  FOLD_HOST_DEVICE FOLD_FORCEINLINE T& operator[](int i) { return data()[i]; }
};

//! Copy-constructs `value` into raw storage at `slot` (a plain store for trivially copyable types).
template <typename T>
FOLD_HOST_DEVICE FOLD_FORCEINLINE void construct_at(T* slot, const T& value)
{
  ::new (static_cast<void*>(slot)) T(value);
}

//! `N` consecutive items, aligned to their size when `N > 1`: what a vector load reads (an agent's slot, a lane's
//! run of a small segment; two 16-byte loads where it is 32 bytes).
template <typename T, int N>
struct alignas(N > 1 ? sizeof(T) * N : alignof(T)) ItemSlot
{
  T items[N];
};

//! Slot `slot` of the items from `in[base]` on (`in[base + slot * N]` to `in[base + slot * N + N - 1]`): one vector
//! load where `Vectorized` (`in + base` a raw pointer aligned to the slot), one load per item otherwise.
template <bool Vectorized, int N, typename InputIteratorT, typename OffsetT>
FOLD_DEVICE FOLD_FORCEINLINE ItemSlot<value_t<InputIteratorT>, N> load_slot(InputIteratorT in, OffsetT base, int slot)
{
  if constexpr (Vectorized)
  {
    return reinterpret_cast<const ItemSlot<value_t<InputIteratorT>, N>*>(in + base)[slot];
  }
  else
  {
    ItemSlot<value_t<InputIteratorT>, N> loaded;
#pragma unroll
    for (int j = 0; j < N; ++j)
    {
      loaded.items[j] = in[base + static_cast<OffsetT>(slot * N + j)];
    }
    return loaded;
  }
}

} // namespace detail
FOLD_NAMESPACE_END
