// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction policy chain: one constexpr policy per architecture, and the one selector that both the host
//! (with the PTX version of the loaded image) and the kernels (with `__CUDA_ARCH__`) call.
#pragma once

#include <fold/util/macros.cuh>

namespace fold
{

//! How BlockReduce combines the threads' values.
enum class BlockReduceAlgorithm
{
  warp_reductions, //!< shuffle-reduce each warp, then reduce the warp aggregates; keeps order
  raking, //!< one warp rakes contiguous runs from shared memory, then shuffle-reduces; keeps order
  raking_commutative_only, //!< the first warp folds in the others' values strided, then shuffle-reduces;
                           //!< needs a commutative operator (partial blocks fall back to `raking`)
};

//! The shape of the reduction kernels on one architecture.
struct ReducePolicy
{
  int block_threads; //!< threads per block (a multiple of 32)
  int items_per_thread; //!< items each thread loads per tile, for 4-byte items (scaled to keep bytes constant)
  int vector_bytes; //!< width of one vector load for primitive types read through aligned raw pointers
  BlockReduceAlgorithm block_algorithm;
  int min_blocks_per_sm; //!< the occupancy the kernels are compiled for (`__launch_bounds__`)
  int oversubscription; //!< pass 1 launches up to occupancy x SMs x this many blocks
};

//! One link of the chain: the policy for architectures from `arch` up to the next entry.
struct ReducePolicyEntry
{
  int arch; //!< as `__CUDA_ARCH__` spells it: 900 for sm_90
  ReducePolicy policy;
};

//! The chain: its entries in ascending architecture order.
struct ReducePolicyChain
{
  static constexpr int size = 5;
  ReducePolicyEntry entries[size];
};

// clang-format off
//! The chain. The sm_60..sm_80 entries carry CUB 3.0.1's sm_60 shape (256 threads, 16 four-byte items,
//! 16-byte vectors), which CUB runs on every later architecture; the sm_90 and sm_100 entries start from it too
//! and are tuned by measurement on the GPU (docs/performance.md records the measurement behind each number).
//! A function rather than a variable so that device code can evaluate it.
FOLD_HOST_DEVICE constexpr ReducePolicyChain reduce_policy_chain()
{
  return {{
    // arch   threads items vector  block algorithm                         min blocks/SM  oversubscription
    {600,   {256,    16,   16,     BlockReduceAlgorithm::warp_reductions,   1,             5}},
    {700,   {256,    16,   16,     BlockReduceAlgorithm::warp_reductions,   1,             5}},
    {800,   {256,    16,   16,     BlockReduceAlgorithm::warp_reductions,   1,             5}},
    {900,   {256,    16,   16,     BlockReduceAlgorithm::warp_reductions,   1,             1}},
    {1000,  {256,    16,   16,     BlockReduceAlgorithm::warp_reductions,   1,             1}},
  }};
}
// clang-format on

//! The policy of the highest chain entry not above `arch`; the lowest entry for anything older (and for the
//! host compilation pass, where `FOLD_ARCH` is 0).
FOLD_HOST_DEVICE constexpr ReducePolicy select_reduce_policy(int arch)
{
  const ReducePolicyChain chain = reduce_policy_chain();
  ReducePolicy selected         = chain.entries[0].policy;
  for (int i = 0; i < ReducePolicyChain::size; ++i)
  {
    if (chain.entries[i].arch <= arch)
    {
      selected = chain.entries[i].policy;
    }
  }
  return selected;
}

//! A policy made concrete for one item type.
struct TileShape
{
  int block_threads;
  int items_per_thread; //!< a multiple of `vector_items`
  int vector_items; //!< items per vector load; 1 when the type is not loaded with vectors
  int tile_items; //!< `block_threads * items_per_thread`
  BlockReduceAlgorithm block_algorithm;
  int grain_items; //!< `block_threads * vector_items`: the unit the grid's ranges are balanced in
};

//! The tile shape of `policy` for items of `item_bytes` bytes. `items_per_thread` is scaled so that every
//! thread loads the same number of bytes whatever the type (64 int8, 16 float, 8 double with the defaults).
FOLD_HOST_DEVICE constexpr TileShape make_tile_shape(const ReducePolicy& policy, int item_bytes, bool vectorizable)
{
  const int bytes_per_thread = policy.items_per_thread * 4;
  const int vector_items =
    (vectorizable && policy.vector_bytes % item_bytes == 0 && policy.vector_bytes > item_bytes)
      ? policy.vector_bytes / item_bytes
      : 1;
  int items = bytes_per_thread / item_bytes;
  items     = items < 1 ? 1 : items;
  items     = (items + vector_items - 1) / vector_items * vector_items;
  return {policy.block_threads,
          items,
          vector_items,
          policy.block_threads * items,
          policy.block_algorithm,
          policy.block_threads * vector_items};
}

} // namespace fold
