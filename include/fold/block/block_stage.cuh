// SPDX-License-Identifier: Apache-2.0
//! @file
//! `block_stage_items`: a block copies a run of consecutive items from global memory into shared memory with
//! 16-byte vector loads, whatever the run's alignment and length, reading only the run's own items.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/uninitialized.cuh>

#include <cstdint>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Items of `T` in a 16-byte vector.
template <typename T>
inline constexpr int stage_vector_items = sizeof(T) < 16 ? static_cast<int>(16 / sizeof(T)) : 1;

//! The place in a staged tile of the first item of a run from `from`: its distance, in items, from the 16-byte
//! boundary at or below it, so that the tile's 16-byte vectors are the run's aligned ones.
template <typename T>
FOLD_DEVICE FOLD_FORCEINLINE int stage_lead(const T* from)
{
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(from) % 16 / sizeof(T));
}

//! Items `[0, count)` from `from` into `tile[stage_lead(from) + i]`, by all `BlockThreads` threads of the block;
//! `tile` is 16-byte aligned and holds `BlockThreads * MaxVectors` vectors, at least `stage_lead(from) + count`
//! items. The 16-byte vectors wholly inside the run are one vector load each (`load_slot`), a thread's
//! `MaxVectors` issued before any is stored; the items of a partial first or last vector (at most
//! `2 * (stage_vector_items<T> - 1)`) one load each, by the first threads. No item outside the run is read.
//! Synchronise the block before reading the tile, and before staging into it again.
template <int BlockThreads, int MaxVectors, typename T>
FOLD_DEVICE FOLD_FORCEINLINE void block_stage_items(T* tile, const T* from, int count)
{
  constexpr int vector_items = stage_vector_items<T>;
  static_assert(BlockThreads >= 2 * vector_items, "block_stage_items: a thread for each partial vector's items");
  using Vector        = ItemSlot<T, vector_items>;
  const int lead      = stage_lead(from);
  const int end       = lead + count; // in items from the boundary at or below `from`
  const T* aligned    = from - lead;  // (a pointer from `from`, so that its loads stay global ones)
  const int tid       = static_cast<int>(threadIdx.x);
  const int whole     = lead == 0 ? 0 : vector_items; // the first whole vector's first item
  const int head_end  = whole < end ? whole : end;    // the partial first vector: [lead, head_end)
  const int tail      = end / vector_items * vector_items;
  const int tail_from = tail > head_end ? tail : head_end; // the partial last vector: [tail_from, end)
  Vector loaded[MaxVectors];
#pragma unroll
  for (int i = 0; i < MaxVectors; ++i)
  {
    const int at = (tid + i * BlockThreads) * vector_items;
    if (at >= whole && at + vector_items <= end)
    {
      loaded[i] = load_slot<true, vector_items>(aligned, at, 0);
    }
  }
  const int single  = tid < vector_items ? lead + tid : tail_from + tid - vector_items; // a partial vector's item
  const bool copies = tid < vector_items ? single < head_end : tid < 2 * vector_items && single < end;
  T item{};
  if (copies)
  {
    item = aligned[single];
  }
#pragma unroll
  for (int i = 0; i < MaxVectors; ++i)
  {
    const int at = (tid + i * BlockThreads) * vector_items;
    if (at >= whole && at + vector_items <= end)
    {
      *reinterpret_cast<Vector*>(tile + at) = loaded[i];
    }
  }
  if (copies)
  {
    tile[single] = item;
  }
}

} // namespace detail
FOLD_NAMESPACE_END
