// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction kernels. Each selects its tile shape with `FOLD_ARCH` (the `__CUDA_ARCH__` of the pass that
//! compiles it) through the same tuning (`TuningT::policy`) the host dispatch calls with the PTX version of the
//! loaded image.
//!
//! - `SingleTileKernel`: one block reduces all `num_items` items and writes the `init`-combined result;
//!   launched alone when the input fits in one tile, and as pass 2 over the partials of `ReduceKernel`.
//! - `ReduceKernel` (pass 1): block `b` reduces the contiguous range GridEvenShare gives it and writes its
//!   partial (exact reductions), or one partial per unit of its range (see `reduce_units`).
//! - `SinglePassKernel`: pass 1 and pass 2 in one launch. Each block writes its partials and takes a ticket;
//!   the block that takes the last ticket reduces the partials in unit order exactly as pass 2 would (same
//!   agent, same shape), so the two paths give bitwise identical results.
//!
//! `OrderedRows`: whether an order-preserving operator's full tiles (items and partials alike) are read in rows, or
//! each thread's run of them (see `AgentReduce`); the dispatch chooses by the call's tiles (`ordered_rows_max_tiles`).
#pragma once

#include <fold/agent/agent_reduce.cuh>
#include <fold/grid/grid_even_share.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/macros.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

#include <cuda/atomic>

FOLD_NAMESPACE_BEGIN
FOLD_KERNELS_BEGIN
namespace detail
{

//! The AgentReduce that kernels compiled for `Arch` under `TuningT` run over input `InputIteratorT`, with the
//! tile of `ShapeOpT`'s class (see `reduce_tile_shape`): the DeviceReduce kernels pass their operator, the
//! segmented kernels `void`. `OrderedRows`: whether an order-preserving agent reads its full tiles in rows (see
//! `AgentReduce`); DeviceReduce's kernels choose by the call's size (`ordered_rows_max_tiles`), the segmented
//! kernels keep each lane's run (their kernels are at their register caps, and what rows would gain there is not
//! measured).
template <typename TuningT,
          int Arch,
          typename InputIteratorT,
          typename AccumT,
          typename OffsetT,
          typename ReductionOpT,
          typename TransformOpT,
          typename ShapeOpT = ReductionOpT,
          bool OrderedRows  = !std::is_void_v<ShapeOpT>>
struct AgentReduceFor
{
  static constexpr TileShape shape = reduce_tile_shape<InputIteratorT, AccumT, TuningT, ShapeOpT>(Arch);
  using type                       = AgentReduce<shape.block_threads,
                           shape.items_per_thread,
                           shape.vector_items,
                           shape.block_algorithm,
                           InputIteratorT,
                           AccumT,
                           OffsetT,
                           ReductionOpT,
                           TransformOpT,
                           AgentScope::block,
                           OrderedRows>;
};

//! The agent of DeviceReduce's kernels in the pass that compiles them (`FOLD_ARCH`): the tile of their operator's
//! class, and an order-preserving operator's full tiles in rows or not (`OrderedRows`).
template <typename TuningT,
          typename InputIteratorT,
          typename AccumT,
          typename OffsetT,
          typename ReductionOpT,
          typename TransformOpT,
          bool OrderedRows>
using ReduceAgent = typename AgentReduceFor<TuningT,
                                            FOLD_ARCH,
                                            InputIteratorT,
                                            AccumT,
                                            OffsetT,
                                            ReductionOpT,
                                            TransformOpT,
                                            ReductionOpT,
                                            OrderedRows>::type;

//! How many partials pass 1 writes over `share`: one per block for an exact reduction (any tree gives the same
//! bits, so the blocks' ranges are free), otherwise one per grain: the grains are the fixed units the input is
//! cut into whatever the grid (see `make_reduce_plan`).
template <typename OffsetT>
FOLD_HOST_DEVICE constexpr OffsetT partial_count(const GridEvenShare<OffsetT>& share, bool exact)
{
  return exact ? static_cast<OffsetT>(share.grid_size) : share.total_grains;
}

//! Pass 1 of one block: reduces its range and writes its partial to `partials[block]` (exact reductions), or
//! reduces it unit by unit and writes each unit's partial to `partials[unit]`.
template <typename ReductionOpT, typename AccumT, typename AgentT, typename OffsetT>
FOLD_DEVICE FOLD_FORCEINLINE void reduce_units(AgentT agent, const GridEvenShare<OffsetT>& share, AccumT* partials)
{
  if constexpr (is_exact_v<ReductionOpT, AccumT>)
  {
    const Range<OffsetT> range = share.block_range(static_cast<int>(blockIdx.x));
    const AccumT aggregate     = agent.ConsumeRange(range.begin, range.end);
    if (threadIdx.x == 0)
    {
      construct_at(partials + blockIdx.x, aggregate);
    }
  }
  else
  {
    const Range<OffsetT> units = share.block_grains(static_cast<int>(blockIdx.x));
    for (OffsetT unit = units.begin;;)
    {
      const Range<OffsetT> range = share.grain_range(unit);
      const AccumT aggregate     = agent.ConsumeRange(range.begin, range.end);
      if (threadIdx.x == 0)
      {
        construct_at(partials + unit, aggregate);
      }
      if (++unit == units.end)
      {
        return;
      }
      __syncthreads(); // the agent's storage is reused by the next unit
    }
  }
}

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT,
          bool OrderedRows = true>
FOLD_KERNEL __launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads) void SingleTileKernel(
    InputIteratorT in, OutputIteratorT out, OffsetT num_items, ReductionOpT op, InitT init, TransformOpT transform)
{
  begin_dependent_kernel();
  using AgentT = ReduceAgent<TuningT, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT, OrderedRows>;
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

template <typename InputIteratorT,
          typename AccumT,
          typename OffsetT,
          typename ReductionOpT,
          typename TransformOpT,
          typename TuningT,
          bool OrderedRows = true>
FOLD_KERNEL
__launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads,
                  kernel_policy<TuningT, FOLD_ARCH>.min_blocks_per_sm) void ReduceKernel(InputIteratorT in,
                                                                                         AccumT* partials,
                                                                                         GridEvenShare<OffsetT> share,
                                                                                         ReductionOpT op,
                                                                                         TransformOpT transform)
{
  begin_dependent_kernel();
  using AgentT = ReduceAgent<TuningT, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT, OrderedRows>;
  __shared__ typename AgentT::TempStorage storage;
  reduce_units<ReductionOpT, AccumT>(AgentT(storage, in, op, transform), share, partials);
}

//! The single-pass kernel's ticket, in the temporary storage: which block finishes last, without a clearing
//! launch and without contention.
//!
//! Steady state: `count` only ever grows (one `fetch_add` per block); `expected` is its value when the call
//! started, and `check` a hash of `expected` that says the pair is valid. Every block reads `expected` before it
//! arrives; the block whose `fetch_add` returns `expected + blocks - 1` is last, and publishes the new `expected`
//! for the next call. All blocks of a call see the same `expected` (only the last block writes it, after every
//! block has arrived), so CUDA-graph replays work as well.
//!
//! First use: storage nobody initialised fails the check (except with probability 2^-64). Then the blocks count
//! with a compare-and-swap on `tagged` instead (the call's id in the upper 40 bits, the count in the lower 24; a
//! stale id restarts the count), and the last block initialises `expected` and `check`. That costs more under
//! contention, but happens once per storage. Leftover bytes are mistaken for this call's count only if their
//! upper 40 bits equal its id: probability 2^-40, on the first use of fresh storage only.
struct Ticket
{
  unsigned int count;
  unsigned int expected;
  unsigned long long check;
  unsigned long long tagged;

  static constexpr int tag_shift                 = 24;
  static constexpr unsigned long long count_mask = (1ull << tag_shift) - 1;

  FOLD_HOST_DEVICE static constexpr unsigned long long hash(unsigned int expected)
  {
    unsigned long long z = expected + 0x9E3779B97F4A7C15ull;
    z                    = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z                    = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  //! What a block reads of the ticket before it arrives: `expected`, and whether `check` vouches for it. Read at
  //! the start of the kernel, so that the load's latency hides behind the block's reduction instead of delaying
  //! its arrival (the ticket only changes after every block has arrived).
  struct Seen
  {
    unsigned int expected;
    bool initialised;
  };
  FOLD_DEVICE static Seen peek(const Ticket* ticket)
  {
    const volatile Ticket* shared = ticket;
    const unsigned int expected   = shared->expected;
    return {expected, shared->check == hash(expected)};
  }

  //! Counts this block in; true for the block that completes the count of `blocks`. Call from the thread that
  //! wrote the block's partials, after writing them, with what `peek` read. The count is a release (it
  //! publishes the partials); the last block then takes an acquire fence, after which every other block's
  //! partials are visible to it (to its other threads after a `__syncthreads()`).
  FOLD_DEVICE static bool arrive(Ticket* ticket, Seen seen, unsigned long long call_id, int blocks)
  {
    volatile Ticket* shared = ticket;
    if (seen.initialised)
    {
      const unsigned int previous = ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device>(ticket->count)
                                        .fetch_add(1u, ::cuda::memory_order_release);
      if (previous - seen.expected != static_cast<unsigned int>(blocks - 1))
      {
        return false;
      }
      ::cuda::atomic_thread_fence(::cuda::memory_order_acquire, ::cuda::thread_scope_device);
      shared->expected = previous + 1;
      shared->check    = hash(previous + 1);
      return true;
    }
    __threadfence();
    unsigned long long tag_seen = shared->tagged, next = 0;
    for (;;)
    {
      next = (tag_seen >> tag_shift) == call_id ? tag_seen + 1 : (call_id << tag_shift) | 1;
      const unsigned long long previous = atomicCAS(&ticket->tagged, tag_seen, next);
      if (previous == tag_seen)
      {
        break;
      }
      tag_seen = previous;
    }
    if (static_cast<int>(next & count_mask) != blocks)
    {
      return false;
    }
    __threadfence();
    const unsigned int count = atomicAdd(&ticket->count, 0u);
    shared->tagged           = 0;
    shared->expected         = count;
    shared->check            = hash(count);
    return true;
  }
};

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT,
          bool OrderedRows = true>
FOLD_KERNEL __launch_bounds__(
    kernel_policy<TuningT, FOLD_ARCH>.block_threads,
    kernel_policy<TuningT, FOLD_ARCH>.min_blocks_per_sm) void SinglePassKernel(InputIteratorT in,
                                                                               OutputIteratorT out,
                                                                               AccumT* partials,
                                                                               Ticket* ticket,
                                                                               unsigned long long call_id,
                                                                               GridEvenShare<OffsetT> share,
                                                                               ReductionOpT op,
                                                                               InitT init,
                                                                               TransformOpT transform)
{
  begin_dependent_kernel();
  using AgentT = ReduceAgent<TuningT, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT, OrderedRows>;
  using PartialsAgentT =
      ReduceAgent<TuningT, AccumT*, AccumT, std::uint32_t, ReductionOpT, CastTo<AccumT>, OrderedRows>;
  __shared__ union
  {
    typename AgentT::TempStorage items;
    typename PartialsAgentT::TempStorage partials;
  } storage;
  __shared__ bool last;

  Ticket::Seen seen{};
  if (threadIdx.x == 0)
  {
    seen = Ticket::peek(ticket);
  }
  reduce_units<ReductionOpT, AccumT>(AgentT(storage.items, in, op, transform), share, partials);
  if (threadIdx.x == 0)
  {
    last = Ticket::arrive(ticket, seen, call_id, share.grid_size);
  }
  __syncthreads();
  if (!last)
  {
    return;
  }
  const AccumT total =
      PartialsAgentT(storage.partials, partials, op, CastTo<AccumT>{})
          .ConsumeRange(0u, static_cast<std::uint32_t>(partial_count(share, is_exact_v<ReductionOpT, AccumT>)));
  if (threadIdx.x == 0)
  {
    store_result(out, init.finalize(op, total));
  }
}

} // namespace detail
FOLD_KERNELS_END
FOLD_NAMESPACE_END
