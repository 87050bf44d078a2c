// SPDX-License-Identifier: Apache-2.0
//! @file
//! The dispatch of a reduction over an array sharded across ranks (`fold::nccl::DeviceReduce`), written against an
//! *exchange*, the one step that talks to the other ranks, so that the same code runs over NCCL and, in the tests,
//! over virtual ranks on one GPU. It never synchronises, allocates, prints or throws.
//!
//! Each rank:
//! 1. makes the plan (`make_sharded_plan`), a pure function of the shards, its rank and the reduction's tile, the
//!    same on every rank;
//! 2. reduces its own items into partials (pass 1): for an inexact reduction, one partial per *unit* of
//!    `unit_items` items cut from its first item, `unit_items` being the unit of the single-GPU plan for the whole
//!    array (`sharded_unit_items`); for an exact one, one partial (nothing for an empty rank);
//! 3. gathers every rank's partials, in rank order (`ExchangeT::all_gather`, or `gather` to the root only);
//! 4. folds them with the single-GPU pass 2 (`DispatchReduce::launch_partials`, in rows or runs as the single GPU's
//!    for the total count) and writes the result.
//!
//! When every rank but the last holds a multiple of `unit_items` (the *granule*), the ranks' units are the
//! single-GPU plan's units, and the gathered partials its partials: the result has the same bits as
//! `fold::DeviceReduce` over the whole array on one GPU.
//!
//! An exchange is a type with
//! - `int rank() const`, `int ranks() const`;
//! - `cudaError_t all_gather(void* buffer, std::size_t bytes, cudaStream_t stream)`: rank `r`'s `bytes` bytes at
//!   `buffer + r * bytes` (written there by rank `r` on `stream`) copied to the same place on every rank, ordered
//!   on `stream`;
//! - `cudaError_t gather(void* buffer, const ShardedSpans& spans, int root, cudaStream_t stream)`: rank `r`'s
//!   `spans.bytes(r)` bytes at `buffer + spans.offset(r)` copied to the same place on rank `root` only.
#pragma once

#include <fold/dispatch/dispatch_reduce.cuh>
#include <fold/nccl/shards.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! The `root` of a sharded reduction whose result lands on every rank.
inline constexpr int every_rank = -1;

//! The unit of an inexact reduction of `total_items` items with tiles of `shape`: the single-GPU plan's (see
//! `make_reduce_plan`), one whole tile for inputs of at most one tile. It is the *granule* of a sharded reduction.
inline std::int64_t sharded_unit_items(std::int64_t total_items, const TileShape& shape, int max_units)
{
  if (total_items <= shape.tile_items)
  {
    return shape.tile_items;
  }
  const auto plan = make_reduce_plan<std::uint64_t>(
      static_cast<std::uint64_t>(total_items), shape.tile_items, shape.grain_items, max_units, 1, 0, 1, 1);
  return static_cast<std::int64_t>(plan.share.grain_items);
}

//! What one rank of a sharded reduction does; a pure function of the shards, the rank and the reduction, the same
//! (but for `rank`) on every rank.
struct ShardedPlan
{
  int rank;
  int root;                       //!< `every_rank`, or the rank that gets the result
  std::int64_t unit_items;        //!< an inexact reduction's unit; 0 for an exact one (one partial per rank)
  std::int64_t slot;              //!< partials per rank in the all-gathered buffer: the most any rank has
  std::int64_t partials;          //!< partials of all ranks together: what pass 2 folds
  bool compact;                   //!< whether the all-gathered slots are copied together before pass 2
  std::size_t storage_align;      //!< the temporary storage is used from this alignment on
  std::size_t gathered_offset;    //!< the partials, gathered (`every_rank`: one slot per rank; a root: packed)
  std::size_t compact_offset;     //!< the partials packed, when `compact`
  std::size_t local_offset;       //!< an exact reduction's own pass 1 storage
  std::size_t local_bytes;        //!< its size
  std::size_t temp_storage_bytes; //!< never 0

  //! The partials rank `r` writes.
  std::int64_t partials_of(const nccl::Shards& shards, int r) const
  {
    const std::int64_t n = shards.count(r);
    return unit_items == 0 ? (n > 0 ? 1 : 0) : n / unit_items + (n % unit_items != 0);
  }
  //! Where rank `r`'s partials start among all of them, in rank order.
  std::int64_t first_of(const nccl::Shards& shards, int r) const
  {
    std::int64_t first = 0;
    for (int s = 0; s < r; ++s)
    {
      first += partials_of(shards, s);
    }
    return first;
  }
  //! Where rank `r`'s partials are in the gathered buffer, in partials.
  std::int64_t gathered_at(const nccl::Shards& shards, int r) const
  {
    return root == every_rank ? r * slot : first_of(shards, r);
  }
};

//! Each rank's partials in a gather to a root, in bytes: what `ExchangeT::gather` copies.
struct ShardedSpans
{
  const nccl::Shards& shards;
  const ShardedPlan& plan;
  std::size_t partial_bytes;

  std::size_t offset(int r) const { return static_cast<std::size_t>(plan.first_of(shards, r)) * partial_bytes; }
  std::size_t bytes(int r) const { return static_cast<std::size_t>(plan.partials_of(shards, r)) * partial_bytes; }
};

//! The plan of rank `rank` (`root`: `every_rank` or a rank) over `shards`, with partials of `partial_bytes` aligned
//! to `partial_align`: units of `unit_items` (0: an exact reduction, one partial per non-empty rank), whose own pass
//! 1 takes `local_bytes` of storage.
inline ShardedPlan make_sharded_plan(const nccl::Shards& shards,
                                     int rank,
                                     int root,
                                     std::int64_t unit_items,
                                     std::size_t partial_bytes,
                                     std::size_t partial_align,
                                     std::size_t local_bytes)
{
  ShardedPlan plan{rank, root, unit_items, 0, 0, false, 0, 0, 0, 0, local_bytes, 0};
  const int ranks = shards.ranks();
  for (int r = 0; r < ranks; ++r)
  {
    const std::int64_t own = plan.partials_of(shards, r);
    plan.partials += own;
    plan.slot = own > plan.slot ? own : plan.slot;
  }
  // All-gathered slots are already packed when every rank but the last fills its slot.
  for (int r = 0; r + 1 < ranks; ++r)
  {
    plan.compact = plan.compact || (root == every_rank && plan.partials_of(shards, r) != plan.slot);
  }
  std::size_t align   = partial_align > 16 ? partial_align : 16;
  plan.storage_align  = align;
  auto round_up       = [align](std::size_t bytes) { return (bytes + align - 1) / align * align; };
  const auto gathered = static_cast<std::size_t>(root == every_rank ? ranks * plan.slot : plan.partials);
  plan.compact_offset = round_up(gathered * partial_bytes);
  plan.local_offset =
      plan.compact_offset + round_up(plan.compact ? static_cast<std::size_t>(plan.partials) * partial_bytes : 0);
  plan.temp_storage_bytes = align - 1 + plan.local_offset + (local_bytes > 0 ? local_bytes : 1);
  return plan;
}

//! Copies each rank's `counts` partials from its slot of the all-gathered buffer to the packed buffer, in order.
template <typename AccumT>
cudaError_t compact_partials(
    const nccl::Shards& shards, const ShardedPlan& plan, const AccumT* gathered, AccumT* packed, cudaStream_t stream)
{
  std::int64_t first = 0;
  for (int r = 0; r < shards.ranks(); ++r)
  {
    const std::int64_t own = plan.partials_of(shards, r);
    if (own > 0)
    {
      if (const cudaError_t error = cudaMemcpyAsync(packed + first,
                                                    gathered + r * plan.slot,
                                                    static_cast<std::size_t>(own) * sizeof(AccumT),
                                                    cudaMemcpyDeviceToDevice,
                                                    stream);
          error != cudaSuccess)
      {
        return error;
      }
    }
    first += own;
  }
  return cudaSuccess;
}

//! An item transform that sees global indices: `transform(item, offset + i)` for local index `i` (ArgMin and
//! ArgMax over a shard).
template <typename TransformOpT>
struct ShiftIndex
{
  TransformOpT transform;
  std::uint64_t offset;

  template <typename T, typename OffsetT>
  FOLD_HOST_DEVICE FOLD_FORCEINLINE auto operator()(const T& item, OffsetT i) const
  {
    return transform(item, offset + static_cast<std::uint64_t>(i));
  }
};

//! A shifted ArgMin/ArgMax transform folds whole tiles as the unshifted one does (detail/tile_fold.cuh).
template <typename TransformOpT>
struct PackArgOf<ShiftIndex<TransformOpT>> : PackArgOf<TransformOpT>
{
};

//! The dispatch of one rank. Offsets are 64-bit: a shard may hold more than 2^32 items.
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT>
struct DispatchShardedReduce
{
  using OffsetT = std::uint64_t;
  //! The single-GPU dispatch: its pass 1 and pass 2 kernels are the ones a sharded reduction runs.
  using SingleT =
      DispatchReduce<InputIteratorT, OutputIteratorT, OffsetT, ReductionOpT, InitT, AccumT, TransformOpT, TuningT>;
  //! An exact reduction's pass 1 on one rank: the single-GPU dispatch, writing its aggregate as one partial.
  using LocalT =
      DispatchReduce<InputIteratorT, AccumT*, OffsetT, ReductionOpT, NoInit<AccumT>, AccumT, TransformOpT, TuningT>;
  static constexpr bool exact = is_exact_v<ReductionOpT, AccumT>;

  template <typename ExchangeT>
  static cudaError_t Dispatch(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT in,
                              OutputIteratorT out,
                              const nccl::Shards& shards,
                              int root,
                              ReductionOpT op,
                              InitT init,
                              TransformOpT transform,
                              ExchangeT& exchange,
                              cudaStream_t stream)
  {
    const int rank  = exchange.rank();
    const int ranks = shards.ranks();
    if (!shards.valid() || ranks != exchange.ranks() || rank < 0 || rank >= ranks || root < every_rank || root >= ranks)
    {
      return cudaErrorInvalidValue;
    }
    const bool receives        = root == every_rank || root == rank;
    const std::int64_t n_local = shards.count(rank);
    if (d_temp_storage != nullptr && ((n_local > 0 && is_null(in)) || (receives && is_null(out))))
    {
      return cudaErrorInvalidValue;
    }
    DeviceFacts facts;
    if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
    {
      return error;
    }
    const ReducePolicy policy = TuningT::policy(facts.arch);
    const TileShape shape     = reduce_tile_shape<InputIteratorT, AccumT, TuningT, ReductionOpT>(facts.arch);
    const bool overlap        = may_overlap(facts.arch, hooks_of<TuningT>());
    std::int64_t unit_items   = 0;
    std::size_t local_bytes   = 0;
    if constexpr (exact)
    {
      if (n_local > 0)
      {
        if (const cudaError_t error = LocalT::Dispatch(nullptr,
                                                       local_bytes,
                                                       in,
                                                       static_cast<AccumT*>(nullptr),
                                                       static_cast<OffsetT>(n_local),
                                                       op,
                                                       NoInit<AccumT>{},
                                                       transform,
                                                       stream);
            error != cudaSuccess)
        {
          return error;
        }
      }
    }
    else
    {
      const auto tiles = tiles_of(static_cast<std::uint64_t>(shards.total()), shape.tile_items);
      unit_items       = sharded_unit_items(shards.total(), shape, max_units_of<ReductionOpT, AccumT>(policy, tiles));
    }
    const ShardedPlan plan =
        make_sharded_plan(shards, rank, root, unit_items, sizeof(AccumT), alignof(AccumT), local_bytes);
    if (d_temp_storage == nullptr)
    {
      temp_storage_bytes = plan.temp_storage_bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < plan.temp_storage_bytes)
    {
      return cudaErrorInvalidValue;
    }

    char* base       = static_cast<char*>(align_up(d_temp_storage, plan.storage_align));
    AccumT* gathered = reinterpret_cast<AccumT*>(base + plan.gathered_offset);
    AccumT* own      = gathered + plan.gathered_at(shards, rank);
    if (n_local > 0)
    {
      if constexpr (exact)
      {
        if (const cudaError_t error = LocalT::Dispatch(base + plan.local_offset,
                                                       local_bytes,
                                                       in,
                                                       own,
                                                       static_cast<OffsetT>(n_local),
                                                       op,
                                                       NoInit<AccumT>{},
                                                       transform,
                                                       stream);
            error != cudaSuccess)
        {
          return error;
        }
      }
      else if (const cudaError_t error =
                   reduce_units(in, own, n_local, unit_items, shards.total(), op, transform, facts, stream);
               error != cudaSuccess)
      {
        return error;
      }
    }

    if (plan.slot > 0)
    {
      const cudaError_t error =
          root == every_rank
              ? exchange.all_gather(gathered, static_cast<std::size_t>(plan.slot) * sizeof(AccumT), stream)
              : exchange.gather(gathered, ShardedSpans{shards, plan, sizeof(AccumT)}, root, stream);
      if (error != cudaSuccess)
      {
        return error;
      }
    }
    if (!receives)
    {
      return cudaSuccess;
    }
    AccumT* partials = gathered;
    if (plan.compact)
    {
      partials = reinterpret_cast<AccumT*>(base + plan.compact_offset);
      if (const cudaError_t error = compact_partials(shards, plan, gathered, partials, stream); error != cudaSuccess)
      {
        return error;
      }
    }
    // Pass 2: the single-GPU pass 2 over the partials of every rank, in rank order.
    return SingleT::launch_partials(SingleT::reads_rows(static_cast<std::uint64_t>(shards.total()), shape),
                                    partials,
                                    out,
                                    static_cast<std::uint32_t>(plan.partials),
                                    op,
                                    init,
                                    shape.block_threads,
                                    stream,
                                    overlap);
  }

private:
  //! Pass 1 of an inexact reduction on one rank: one partial per unit of `unit_items` of its `n_local` items, over
  //! the grid the single-GPU dispatch would give them (`DispatchReduce::pass1_grid`), its full tiles read as the
  //! single-GPU dispatch reads those of all `total` items (`DispatchReduce::reads_rows`).
  static cudaError_t reduce_units(InputIteratorT in,
                                  AccumT* partials,
                                  std::int64_t n_local,
                                  std::int64_t unit_items,
                                  std::int64_t total,
                                  ReductionOpT op,
                                  TransformOpT transform,
                                  const DeviceFacts& facts,
                                  cudaStream_t stream)
  {
    const ReducePolicy policy = TuningT::policy(facts.arch);
    const TileShape shape     = reduce_tile_shape<InputIteratorT, AccumT, TuningT, ReductionOpT>(facts.arch);
    const bool rows           = SingleT::reads_rows(static_cast<std::uint64_t>(total), shape);
    int max_grid_size         = 0;
    if (const cudaError_t error = SingleT::template pass1_grid<true>(
            rows, static_cast<std::uint64_t>(n_local), facts, policy, shape, hooks_of<TuningT>(), max_grid_size);
        error != cudaSuccess)
    {
      return error;
    }
    const auto share =
        GridEvenShare<OffsetT>::make(static_cast<OffsetT>(n_local), static_cast<OffsetT>(unit_items), max_grid_size);
    return SingleT::with_tree(rows,
                              [&](auto in_rows)
                              {
                                return launch(SingleT::template reduce_kernel<decltype(in_rows)::value>,
                                              share.grid_size,
                                              shape.block_threads,
                                              stream,
                                              may_overlap(facts.arch, hooks_of<TuningT>()),
                                              in,
                                              partials,
                                              share,
                                              op,
                                              transform);
                              });
  }
};

//! The common entry of every sharded algorithm, as `reduce` is of DeviceReduce's.
template <typename AccumT,
          typename TuningT,
          typename ExchangeT,
          typename InputIteratorT,
          typename OutputIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename TransformOpT>
cudaError_t sharded_reduce(void* d_temp_storage,
                           std::size_t& temp_storage_bytes,
                           InputIteratorT in,
                           OutputIteratorT out,
                           const nccl::Shards& shards,
                           int root,
                           ReductionOpT op,
                           InitT init,
                           TransformOpT transform,
                           ExchangeT& exchange,
                           cudaStream_t stream)
{
  static_assert(std::is_default_constructible_v<AccumT> && std::is_trivially_copyable_v<AccumT>,
                "fold::nccl::DeviceReduce: the accumulator type must be default-constructible and trivially "
                "copyable (partials travel between ranks as bytes)");
  return DispatchShardedReduce<InputIteratorT, OutputIteratorT, ReductionOpT, InitT, AccumT, TransformOpT, TuningT>::
      Dispatch(d_temp_storage, temp_storage_bytes, in, out, shards, root, op, init, transform, exchange, stream);
}

} // namespace detail
FOLD_NAMESPACE_END
