// SPDX-License-Identifier: Apache-2.0
//! @file
//! Raw, suitably aligned storage for `N` objects of a type that need not be trivially constructible, so that
//! any accumulator type can live in `__shared__` memory or in temporary storage; and the aligned slots of items
//! that one vector load reads.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <cstdint>
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

//! The bytes of an `ItemSlot<T, N>` (a whole number of 32-bit words of them) as 32-bit words: what a vector load
//! reads where a slot's items are taken a word at a time (four bytes a `__dp4a`, two lanes a packed min/max).
//! Loaded as an `ItemSlot` of 1- or 2-byte items and read as words, the items were taken apart and put together
//! again, about ten instructions a word (nvcc 13.0, sm_90; a `bit_cast` or `memcpy` as well).
template <typename T, int N>
struct alignas(sizeof(T) * N) SlotWords
{
  static_assert(sizeof(T) * N % 4 == 0, "SlotWords: a whole number of 32-bit words");
  std::uint32_t words[sizeof(T) * N / 4];
};

//! Slot `slot` of the items from `in[base]` on (a raw pointer aligned to the slot) as words: one vector load.
template <int N, typename InputIteratorT, typename OffsetT>
FOLD_DEVICE FOLD_FORCEINLINE SlotWords<value_t<InputIteratorT>, N>
load_slot_words(InputIteratorT in, OffsetT base, int slot)
{
  return reinterpret_cast<const SlotWords<value_t<InputIteratorT>, N>*>(in + base)[slot];
}

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

//! `*to = from[i]`, into shared memory, by `cp.async` where `from` is a pointer to 4- or 8-byte values: nothing is
//! held in registers until `wait_for_copies`. Other iterators are read and stored at once.
template <typename T, typename IteratorT>
FOLD_DEVICE FOLD_FORCEINLINE void copy_to_shared(T* to, IteratorT from, std::int64_t i)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_pointer_v<IteratorT> && std::is_same_v<std::remove_cv_t<value_t<IteratorT>>, T> &&
                (sizeof(T) == 4 || sizeof(T) == 8))
  {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(to))),
                 "l"(__cvta_generic_to_global(from + i)),
                 "n"(static_cast<int>(sizeof(T)))
                 : "memory");
    return;
  }
#endif
  *to = static_cast<T>(from[i]);
}

//! Waits for this thread's `copy_to_shared` and `stage_vectors_async` copies (other threads see them after a
//! barrier).
FOLD_DEVICE FOLD_FORCEINLINE void wait_for_copies()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

//! Asks L2 to fetch items `[begin, begin + count)` of `in` ahead of their loads: one `prefetch.global.L2` per
//! 128-byte line, at most `MaxLines` lines from the first item (each thread its own addresses, no register or
//! scoreboard held; the bulk form, `cp.async.bulk.prefetch`, takes warp-uniform operands, so a warp of different
//! ranges became a loop over its lanes). Every address asked for is an item's. A hint: nothing for other iterators,
//! and the loads see the same values. One line needs no line count: its 64-bit arithmetic was about a tenth of the
//! instructions of `SegmentedWarpKernel`'s step over one-lane segments, whose one-item segments took 0.95-0.97 of the
//! time without it on an H200.
template <int MaxLines, typename InputIteratorT>
FOLD_DEVICE FOLD_FORCEINLINE void prefetch_items(InputIteratorT in, std::int64_t begin, std::uint64_t count)
{
  if constexpr (std::is_pointer_v<InputIteratorT>)
  {
    const auto first = reinterpret_cast<std::uintptr_t>(in + begin);
    if constexpr (MaxLines == 1)
    {
      if (count != 0)
      {
        asm volatile("prefetch.global.L2 [%0];" ::"l"(first));
      }
    }
    else
    {
      const auto last  = first + count * sizeof(value_t<InputIteratorT>) - 1; // the last item's last byte
      const auto lines = count == 0 ? std::uintptr_t{0} : (last >> 7) - (first >> 7) + 1;
#pragma unroll
      for (int k = 0; k < MaxLines; ++k)
      {
        if (static_cast<std::uintptr_t>(k) < lines)
        {
          const std::uintptr_t address = k == 0 ? first : ((first >> 7) + static_cast<std::uintptr_t>(k)) << 7;
          asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
        }
      }
    }
  }
}

} // namespace detail
FOLD_NAMESPACE_END
