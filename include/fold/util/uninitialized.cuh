// SPDX-License-Identifier: Apache-2.0
//! @file
//! Raw, suitably aligned storage for `N` objects of a type that need not be trivially constructible, so that
//! any accumulator type can live in `__shared__` memory or in temporary storage.
#pragma once

#include <fold/util/macros.cuh>

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

} // namespace detail
FOLD_NAMESPACE_END
