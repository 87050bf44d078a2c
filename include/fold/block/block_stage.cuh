// SPDX-License-Identifier: Apache-2.0
//! @file
//! `block_stage_items`: a block copies a run of consecutive items from global memory into shared memory with
//! 16-byte vector loads, whatever the run's alignment and length, reading only the run's own items;
//! `block_stage_items_async` the same by asynchronous copies, for a tile staged while another is read;
//! `stage_vectors_async` a run already aligned and whole 16-byte vectors, by any team of threads.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/util/uninitialized.cuh>

#include <cuda_pipeline_primitives.h>

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

//! One item of a partial first or last vector of a staged run, loaded into a register and stored into the tile by
//! `store` (nothing where this thread copies none).
template <typename T>
struct StagedItem
{
  T item;
  int at;
  bool copies;

  FOLD_DEVICE FOLD_FORCEINLINE void store(T* tile) const
  {
    if (copies)
    {
      tile[at] = item;
    }
  }
};

//! Where the items `[0, count)` from `from` lie in their staged tile, in items from the 16-byte boundary at or below
//! `from` (`aligned`): the whole vectors are those `whole_vector` names; the items of a partial first vector,
//! `[lead, head_end)`, and of a partial last one, `[tail_from, end)`, are `partial_item`'s.
template <typename T>
struct StagedRun
{
  static constexpr int vector_items = stage_vector_items<T>;
  const T* aligned; // (a pointer from `from`, so that its loads stay global ones)
  int lead;
  int end;
  int whole; // the first whole vector's first item
  int head_end;
  int tail_from;

  FOLD_DEVICE FOLD_FORCEINLINE StagedRun(const T* from, int count)
      : aligned(from - stage_lead(from))
      , lead(stage_lead(from))
      , end(lead + count)
      , whole(lead == 0 ? 0 : vector_items)
      , head_end(whole < end ? whole : end)
      , tail_from(end / vector_items * vector_items > head_end ? end / vector_items * vector_items : head_end)
  {
  }

  //! Whether the vector whose first item is `at` lies wholly inside the run.
  FOLD_DEVICE FOLD_FORCEINLINE bool whole_vector(int at) const { return at >= whole && at + vector_items <= end; }

  //! Thread `tid`'s item of a partial vector, loaded: the first `vector_items` threads take the first vector's, the
  //! next ones the last vector's.
  FOLD_DEVICE FOLD_FORCEINLINE StagedItem<T> partial_item(int tid) const
  {
    StagedItem<T> single{T{}, tid < vector_items ? lead + tid : tail_from + tid - vector_items, false};
    single.copies = tid < vector_items ? single.at < head_end : tid < 2 * vector_items && single.at < end;
    if (single.copies)
    {
      single.item = aligned[single.at];
    }
    return single;
  }
};

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
  using Vector = ItemSlot<T, vector_items>;
  const StagedRun<T> run(from, count);
  const int tid = static_cast<int>(threadIdx.x);
  Vector loaded[MaxVectors];
#pragma unroll
  for (int i = 0; i < MaxVectors; ++i)
  {
    const int at = (tid + i * BlockThreads) * vector_items;
    if (run.whole_vector(at))
    {
      loaded[i] = load_slot<true, vector_items>(run.aligned, at, 0);
    }
  }
  const StagedItem<T> single = run.partial_item(tid);
#pragma unroll
  for (int i = 0; i < MaxVectors; ++i)
  {
    const int at = (tid + i * BlockThreads) * vector_items;
    if (run.whole_vector(at))
    {
      *reinterpret_cast<Vector*>(tile + at) = loaded[i];
    }
  }
  single.store(tile);
}

//! `block_stage_items` with the whole vectors copied asynchronously (`__pipeline_memcpy_async`: cp.async from sm_80,
//! straight to shared memory, no register held), in this thread's current pipeline group; the partial vectors'
//! item is returned, loaded. Before reading the tile: commit the group (`__pipeline_commit`), store the item, wait
//! for the group (`__pipeline_wait_prior`) and synchronise the block. So a block can stage its next tile while it
//! reads this one. Where the block waits for its tile anyway, `block_stage_items` is faster: on an H200, small
//! fixed-size Sum and Min over 3-33 items took up to 1.09x the time with their one tile staged this way.
template <int BlockThreads, int MaxVectors, typename T>
FOLD_DEVICE FOLD_FORCEINLINE StagedItem<T> block_stage_items_async(T* tile, const T* from, int count)
{
  constexpr int vector_items = stage_vector_items<T>;
  static_assert(BlockThreads >= 2 * vector_items, "block_stage_items_async: a thread for each partial vector's items");
  const StagedRun<T> run(from, count);
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int i = 0; i < MaxVectors; ++i)
  {
    const int at = (tid + i * BlockThreads) * vector_items;
    if (run.whole_vector(at))
    {
      __pipeline_memcpy_async(tile + at, run.aligned + at, 16);
    }
  }
  return run.partial_item(tid);
}

//! `Count` items from `from` into `tile` (both 16-byte aligned, the items whole 16-byte vectors) by asynchronous
//! 16-byte copies (`__pipeline_memcpy_async`, as `block_stage_items_async`), by `Threads` threads of which this is
//! `tid`, each every `Threads`-th vector. Without `block_stage_items_async`'s bookkeeping for a run's partial first and
//! last vectors, which such a run has none of. Wait with `wait_for_copies` (util/uninitialized.cuh) or the pipeline's
//! own wait. Taken by a warp for its part of a full ReduceByKey tile: 0.98-1.00 of the time of a copy an item a lane
//! at a time on an H100, 0.977-0.993 for int32 keys with float values in runs of 1 to 8 (docs/performance.md,
//! "ReduceByKey: 16-byte copies").
template <int Threads, int Count, typename T>
FOLD_DEVICE FOLD_FORCEINLINE void stage_vectors_async(T* tile, const T* from, int tid)
{
  static_assert(Count * sizeof(T) % 16 == 0, "stage_vectors_async: whole 16-byte vectors");
  constexpr int vectors = static_cast<int>(Count * sizeof(T) / 16);
#pragma unroll
  for (int k = 0; k < (vectors + Threads - 1) / Threads; ++k)
  {
    const int v = k * Threads + tid;
    if (vectors % Threads == 0 || v < vectors)
    {
      __pipeline_memcpy_async(reinterpret_cast<uint4*>(tile) + v, reinterpret_cast<const uint4*>(from) + v, 16);
    }
  }
}

} // namespace detail
FOLD_NAMESPACE_END
