// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction kernels. Each selects its tile shape with `FOLD_ARCH` (the `__CUDA_ARCH__` of the pass that
//! compiles it) through the same selector the host dispatch uses with the PTX version of the loaded image.
//!
//! - `SingleTileKernel`: one block reduces all `num_items` items and writes `init`-combined result; launched
//!   alone when the input fits in one tile, and as pass 2 over the partials of `ReduceKernel`.
//! - `ReduceKernel` (pass 1): block `b` reduces the contiguous range GridEvenShare gives it and writes its
//!   partial to `partials[b]`.
//! - `SinglePassKernel`: pass 1 and pass 2 in one launch. Each block writes its partial and takes a ticket; the
//!   block that takes the last ticket reduces the partials in block order exactly as pass 2 would (same agent,
//!   same shape), so the two paths give bitwise identical results.
#pragma once

#include <fold/agent/agent_reduce.cuh>
#include <fold/grid/grid_even_share.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

namespace fold::detail
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

//! Two outputs written from one key-value result: the value to `values`, the key (index) to `keys`.
template <typename ValueOutputIteratorT, typename KeyOutputIteratorT>
struct ArgOutput
{
  ValueOutputIteratorT values;
  KeyOutputIteratorT keys;
};

//! Writes `result` to `*out`, converted to the output's value type where it has one.
template <typename OutputIteratorT, typename T>
FOLD_DEVICE FOLD_FORCEINLINE void store_result(OutputIteratorT out, const T& result)
{
  using OutputT = non_void_value_t<OutputIteratorT, T>;
  *out          = convert<OutputT>(result);
}

template <typename ValueOutputIteratorT, typename KeyOutputIteratorT, typename K, typename V>
FOLD_DEVICE FOLD_FORCEINLINE void
store_result(ArgOutput<ValueOutputIteratorT, KeyOutputIteratorT> out, const KeyValuePair<K, V>& result)
{
  store_result(out.values, result.value);
  store_result(out.keys, result.key);
}

//! The AgentReduce that kernels compiled for `Arch` run over input `InputIteratorT`.
template <int Arch, typename InputIteratorT, typename AccumT, typename OffsetT, typename ReductionOpT, typename TransformOpT>
struct AgentReduceFor
{
  static constexpr TileShape shape = reduce_tile_shape<InputIteratorT>(Arch);
  using type = AgentReduce<shape.block_threads,
                           shape.items_per_thread,
                           shape.vector_items,
                           shape.block_algorithm,
                           InputIteratorT,
                           AccumT,
                           OffsetT,
                           ReductionOpT,
                           TransformOpT>;
};

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT>
__global__ __launch_bounds__(select_reduce_policy(FOLD_ARCH).block_threads) void SingleTileKernel(
  InputIteratorT in, OutputIteratorT out, OffsetT num_items, ReductionOpT op, InitT init, TransformOpT transform)
{
  using AgentT = typename AgentReduceFor<FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>::type;
  __shared__ typename AgentT::TempStorage storage;

  if (num_items == 0)
  {
    if (threadIdx.x == 0)
    {
      store_result(out, init.empty());
    }
    return;
  }
  const AccumT aggregate = AgentT(storage, in, op, transform).ConsumeRange(OffsetT{0}, num_items);
  if (threadIdx.x == 0)
  {
    store_result(out, init.finalize(op, aggregate));
  }
}

template <typename InputIteratorT, typename AccumT, typename OffsetT, typename ReductionOpT, typename TransformOpT>
__global__ __launch_bounds__(select_reduce_policy(FOLD_ARCH).block_threads,
                             select_reduce_policy(FOLD_ARCH).min_blocks_per_sm) void ReduceKernel(
  InputIteratorT in, AccumT* partials, GridEvenShare<OffsetT> share, ReductionOpT op, TransformOpT transform)
{
  using AgentT = typename AgentReduceFor<FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>::type;
  __shared__ typename AgentT::TempStorage storage;

  const Range<OffsetT> range = share.block_range(static_cast<int>(blockIdx.x));
  const AccumT aggregate     = AgentT(storage, in, op, transform).ConsumeRange(range.begin, range.end);
  if (threadIdx.x == 0)
  {
    construct_at(partials + blockIdx.x, aggregate);
  }
}

//! The ticket of the single-pass kernel: one 64-bit word in the temporary storage holding the call's id
//! (upper 40 bits) and the number of blocks that have finished (lower 24 bits). Whatever the word holds when a
//! call starts, the first block to finish finds another id there and starts the count afresh, so the storage
//! needs no clearing launch; the last block resets the word to 0, which keeps CUDA-graph replays (that repeat one
//! id) correct. Arbitrary leftover bytes could be mistaken for a count of this very call only if their upper 40
//! bits equal its id: a chance of 2^-40 on the first use of fresh storage.
struct Ticket
{
  static constexpr int count_bits = 24;
  static constexpr unsigned long long count_mask = (1ull << count_bits) - 1;

  //! Counts this block in; true for the block that completes the count of `blocks`. Call from one thread, after
  //! the block's partial is written (the fence before the count publishes it).
  FOLD_DEVICE static bool arrive(unsigned long long* word, unsigned long long id, int blocks)
  {
    __threadfence();
    unsigned long long seen = *reinterpret_cast<volatile unsigned long long*>(word);
    unsigned long long next = 0;
    for (;;)
    {
      next = (seen >> count_bits) == id ? seen + 1 : (id << count_bits) | 1;
      const unsigned long long previous = atomicCAS(word, seen, next);
      if (previous == seen)
      {
        break;
      }
      seen = previous;
    }
    const bool last = static_cast<int>(next & count_mask) == blocks;
    if (last)
    {
      __threadfence(); // acquire: the other blocks' partials are visible from here on
      *word = 0;
    }
    return last;
  }
};

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT>
__global__ __launch_bounds__(select_reduce_policy(FOLD_ARCH).block_threads,
                             select_reduce_policy(FOLD_ARCH).min_blocks_per_sm) void SinglePassKernel(
  InputIteratorT in,
  OutputIteratorT out,
  AccumT* partials,
  unsigned long long* ticket,
  unsigned long long call_id,
  GridEvenShare<OffsetT> share,
  ReductionOpT op,
  InitT init,
  TransformOpT transform)
{
  using AgentT = typename AgentReduceFor<FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>::type;
  using PartialsAgentT =
    typename AgentReduceFor<FOLD_ARCH, AccumT*, AccumT, std::uint32_t, ReductionOpT, CastTo<AccumT>>::type;
  __shared__ union
  {
    typename AgentT::TempStorage items;
    typename PartialsAgentT::TempStorage partials;
  } storage;
  __shared__ bool last;

  const Range<OffsetT> range = share.block_range(static_cast<int>(blockIdx.x));
  const AccumT aggregate     = AgentT(storage.items, in, op, transform).ConsumeRange(range.begin, range.end);
  if (threadIdx.x == 0)
  {
    construct_at(partials + blockIdx.x, aggregate);
    last = Ticket::arrive(ticket, call_id, share.grid_size);
  }
  __syncthreads();
  if (!last)
  {
    return;
  }
  const AccumT total = PartialsAgentT(storage.partials, partials, op, CastTo<AccumT>{})
                         .ConsumeRange(0u, static_cast<std::uint32_t>(share.grid_size));
  if (threadIdx.x == 0)
  {
    store_result(out, init.finalize(op, total));
  }
}

} // namespace fold::detail
