// SPDX-License-Identifier: Apache-2.0
//! @file
//! fold::nccl::DeviceReduce: fold's reductions over an array sharded across the ranks of an NCCL communicator,
//! with the same bits as `fold::DeviceReduce` on one GPU over the whole array (see `Granule`). Part of the CMake
//! target `fold::nccl`, which links NCCL; the rest of fold does not need it.
#pragma once

#include <fold/nccl/sharded_reduce.cuh>
#include <fold/nccl/shards.cuh>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <vector>

FOLD_NAMESPACE_BEGIN
namespace nccl
{

//! What a `fold::nccl` call returns when an NCCL call failed: `last_result()` then says which `ncclResult_t` it
//! returned (and `ncclGetLastError(comm)` NCCL's own message). No other failure returns this value.
inline constexpr cudaError_t nccl_error = cudaErrorExternalDevice;

//! The rank a result is left on, for the calls that leave it on one rank only.
struct Root
{
  int rank;
};

namespace detail
{
inline ncclResult_t& last_result_slot()
{
  static thread_local ncclResult_t result = ncclSuccess;
  return result;
}

//! `result` as a `cudaError_t`, kept for `last_result()`. A non-blocking communicator's `ncclInProgress` is waited
//! out on the host (`ncclCommGetAsyncError` until it reports the operation queued or failed): NCCL forbids
//! queueing other work on its stream before then, and fold queues its next kernel at once.
inline cudaError_t check(ncclResult_t result, ncclComm_t comm)
{
  while (result == ncclInProgress && comm != nullptr)
  {
    if (ncclCommGetAsyncError(comm, &result) != ncclSuccess)
    {
      result = ncclInternalError;
    }
  }
  if (result == ncclSuccess)
  {
    return cudaSuccess;
  }
  last_result_slot() = result;
  return nccl_error;
}

//! The exchange of dispatch/dispatch_reduce_distributed.cuh over an NCCL communicator: an in-place
//! `ncclAllGather`, or a group of `ncclSend`/`ncclRecv` to the root.
class NcclExchange
{
public:
  //! Reads the communicator's rank and size.
  cudaError_t open(ncclComm_t comm)
  {
    comm_ = comm;
    if (comm == nullptr)
    {
      return cudaErrorInvalidValue;
    }
    if (const cudaError_t error = check(ncclCommUserRank(comm, &rank_), comm); error != cudaSuccess)
    {
      return error;
    }
    return check(ncclCommCount(comm, &ranks_), comm);
  }

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }

  cudaError_t all_gather(void* buffer, std::size_t bytes, cudaStream_t stream)
  {
    char* base = static_cast<char*>(buffer);
    return check(ncclAllGather(base + rank_ * bytes, base, bytes, ncclUint8, comm_, stream), comm_);
  }

  cudaError_t gather(void* buffer, const fold::detail::ShardedSpans& spans, int root, cudaStream_t stream)
  {
    char* base = static_cast<char*>(buffer);
    if (const cudaError_t error = check(ncclGroupStart(), comm_); error != cudaSuccess)
    {
      return error;
    }
    ncclResult_t result = ncclSuccess;
    if (rank_ == root)
    {
      for (int r = 0; r < ranks_ && result == ncclSuccess; ++r)
      {
        if (r != root && spans.bytes(r) > 0)
        {
          result = ncclRecv(base + spans.offset(r), spans.bytes(r), ncclUint8, r, comm_, stream);
        }
      }
    }
    else if (spans.bytes(rank_) > 0)
    {
      result = ncclSend(base + spans.offset(rank_), spans.bytes(rank_), ncclUint8, root, comm_, stream);
    }
    const ncclResult_t ended = ncclGroupEnd(); // always closes the group it opened
    return check(result != ncclSuccess ? result : ended, comm_);
  }

private:
  ncclComm_t comm_ = nullptr;
  int rank_        = 0;
  int ranks_       = 0;
};

//! Opens the exchange of `comm` and runs `call(exchange)`, keeping NCCL's result for `last_result()`.
template <typename CallT>
cudaError_t with_exchange(ncclComm_t comm, CallT&& call)
{
  last_result_slot() = ncclSuccess;
  NcclExchange exchange;
  if (const cudaError_t error = exchange.open(comm); error != cudaSuccess)
  {
    return error;
  }
  return call(exchange);
}

using Sharded = fold::detail::ShardedReduce<NcclExchange>;
} // namespace detail

//! The `ncclResult_t` of the NCCL call that made this thread's last `fold::nccl` call return `nccl_error`;
//! `ncclSuccess` when that call did not fail in NCCL.
inline ncclResult_t last_result()
{
  return detail::last_result_slot();
}

//! The shards of an array of which this rank holds `num_items_local` items, learned from every rank of `comm`
//! (an `ncclAllGather` of the counts). Unlike the reductions, this call allocates (8 bytes per rank, on `stream`)
//! and synchronises `stream`: make the shards once per layout, then reduce as often as needed. Every rank must
//! call it. Returns `cudaErrorInvalidValue` for a negative count, a null `comm` or counts that add up to more than
//! 2^63 - 1 items (`shards` then left as it was), `nccl_error` when NCCL fails.
inline cudaError_t exchange_counts(std::int64_t num_items_local, Shards& shards, ncclComm_t comm, cudaStream_t stream)
{
  detail::last_result_slot() = ncclSuccess;
  if (num_items_local < 0)
  {
    return cudaErrorInvalidValue;
  }
  detail::NcclExchange exchange;
  if (const cudaError_t error = exchange.open(comm); error != cudaSuccess)
  {
    return error;
  }
  std::vector<std::int64_t> counts(static_cast<std::size_t>(exchange.ranks()), 0);
  const std::size_t bytes = counts.size() * sizeof(std::int64_t);
  void* d_counts          = nullptr;
  cudaError_t error       = cudaMallocAsync(&d_counts, bytes, stream);
  if (error != cudaSuccess)
  {
    return error;
  }
  error = cudaMemcpyAsync(static_cast<std::int64_t*>(d_counts) + exchange.rank(),
                          &num_items_local,
                          sizeof(std::int64_t),
                          cudaMemcpyHostToDevice,
                          stream);
  if (error == cudaSuccess)
  {
    error = exchange.all_gather(d_counts, sizeof(std::int64_t), stream);
  }
  if (error == cudaSuccess)
  {
    error = cudaMemcpyAsync(counts.data(), d_counts, bytes, cudaMemcpyDeviceToHost, stream);
  }
  const cudaError_t freed  = cudaFreeAsync(d_counts, stream);
  const cudaError_t synced = cudaStreamSynchronize(stream);
  error                    = error != cudaSuccess ? error : freed != cudaSuccess ? freed : synced;
  if (error != cudaSuccess)
  {
    return error;
  }
  const Shards exchanged{counts};
  if (!exchanged.valid())
  {
    return cudaErrorInvalidValue; // the counts add up to more than 2^63 - 1 items
  }
  shards = exchanged;
  return cudaSuccess;
}

//! Reductions over the concatenation, in rank order, of every rank's `d_in[0, shards.count(rank))`, the rank being
//! the caller's in `comm`.
//!
//! @code
//! // examples/nccl_sum.cu [nccl-sum]
//! // Each rank holds its shard of the array: shards.count(rank) floats at d_in.
//! size_t bytes = 0;
//! CHECK(fold::nccl::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, shards, comm, stream)); // 1. query
//! void* d_temp = nullptr;
//! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
//! CHECK(fold::nccl::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, shards, comm, stream)); // 2. run, on every rank
//! @endcode
//!
//! Common to every algorithm:
//! - Every rank of `comm` calls it, with equal `shards` (`shards.ranks()` the size of `comm`), the same algorithm,
//!   types and option, on a stream of its own device. The result is written to `d_out` on every rank; the overloads
//!   taking a `Root` write it on that rank only (the others' outputs may be null and are not touched).
//! - CUB's two calls: with `d_temp_storage == nullptr` only the size of the temporary storage is written (a
//!   function of the types, the shards, the rank and the device; `comm` is asked its rank and size, no collective
//!   runs). The run queues everything on `stream`: pass 1 (one kernel, two for an exact reduction of a large
//!   shard), one NCCL collective (an `ncclAllGather`, or `ncclSend`/`ncclRecv` to the root), plus one copy per rank
//!   when some rank but the last has fewer partials than another, and pass 2. Nothing is allocated, nothing
//!   synchronises with the host, except that with a non-blocking communicator the call waits on the host until NCCL
//!   has queued its collective (NCCL forbids other work on the stream before), and the call may be captured into a
//!   CUDA graph where NCCL allows.
//! - One host thread (or process) per rank, and never inside `ncclGroupStart`/`ncclGroupEnd`: inside a group NCCL
//!   queues the collective only at the group's end, after pass 2 has already read the partials.
//! - Order: as `fold::DeviceReduce`, the whole array's index order for an operator not declared commutative.
//!   ArgMin/ArgMax return indices into the whole array (`int64_t`): a rank's item `i` is item `shards.offset(rank) +
//!   i`.
//! - Bits: every rank gets the same bits, on every run. An exact reduction (integer sums, Min, Max, ArgMin, ArgMax)
//!   gives the bits of `fold::DeviceReduce` on one GPU for any shards. An inexact one (floating-point sums, user
//!   operators) gives them whenever every rank but the last holds a multiple of `Granule` items (`Shards::even`
//!   with that granule makes such shards); for other shards the bits depend on the shards, and only on them
//!   (docs/semantics.md, "Across GPUs"). Every rank must run the same architecture (or pass `fold::gpu_to_gpu`)
//!   and pass equal shards: otherwise the ranks' plans, and so their collectives, differ in size, which NCCL leaves
//!   undefined (a hang, or corrupted results).
//! - Return values: `cudaSuccess`; `cudaErrorInvalidValue` (nothing queued, nothing written) for a null `comm`,
//!   invalid `shards`, shards of another number of ranks than `comm`, a `Root` that is no rank, a null `d_in` on a
//!   rank with items, a null output where the result is written, or too little temporary storage; `nccl_error` when
//!   an NCCL call fails (`last_result()` names NCCL's result); otherwise the CUDA error of the call that failed.
//!   Errors NCCL reports later, asynchronously, come from `ncclCommGetAsyncError(comm)` as for any NCCL
//!   collective. A rank that returns an error before its collective leaves the others waiting in theirs: as with
//!   NCCL's own calls, the caller then aborts the communicator (`ncclCommAbort`).
struct DeviceReduce
{
  //! `init op x[0] op ... op x[n - 1]` over the whole array, to `*d_out` on every rank; as
  //! `fold::DeviceReduce::Reduce`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t Reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            const Shards& shards,
                            ReductionOpT reduction_op,
                            T init,
                            ncclComm_t comm,
                            cudaStream_t stream,
                            OptionT option = {})
  {
    return ReduceTo(d_temp_storage,
                    temp_storage_bytes,
                    d_in,
                    d_out,
                    shards,
                    reduction_op,
                    init,
                    fold::detail::every_rank,
                    comm,
                    stream,
                    option);
  }

  //! `Reduce`, the result on `root.rank` only.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t Reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            const Shards& shards,
                            ReductionOpT reduction_op,
                            T init,
                            Root root,
                            ncclComm_t comm,
                            cudaStream_t stream,
                            OptionT option = {})
  {
    if (root.rank < 0)
    {
      return cudaErrorInvalidValue;
    }
    return ReduceTo(
        d_temp_storage, temp_storage_bytes, d_in, d_out, shards, reduction_op, init, root.rank, comm, stream, option);
  }

  //! The sum over the whole array, to `*d_out` on every rank; as `fold::DeviceReduce::Sum`.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Shards& shards,
                         ncclComm_t comm,
                         cudaStream_t stream,
                         OptionT option = {})
  {
    return SumTo(
        d_temp_storage, temp_storage_bytes, d_in, d_out, shards, fold::detail::every_rank, comm, stream, option);
  }

  //! `Sum`, the result on `root.rank` only.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Shards& shards,
                         Root root,
                         ncclComm_t comm,
                         cudaStream_t stream,
                         OptionT option = {})
  {
    if (root.rank < 0)
    {
      return cudaErrorInvalidValue;
    }
    return SumTo(d_temp_storage, temp_storage_bytes, d_in, d_out, shards, root.rank, comm, stream, option);
  }

  //! The smallest item of the whole array, to `*d_out` on every rank; as `fold::DeviceReduce::Min`.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Min(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Shards& shards,
                         ncclComm_t comm,
                         cudaStream_t stream,
                         OptionT option = {})
  {
    return Extremum<false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, shards, fold::detail::every_rank, comm, stream, option);
  }

  //! `Min`, the result on `root.rank` only.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Min(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Shards& shards,
                         Root root,
                         ncclComm_t comm,
                         cudaStream_t stream,
                         OptionT option = {})
  {
    if (root.rank < 0)
    {
      return cudaErrorInvalidValue;
    }
    return Extremum<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, shards, root.rank, comm, stream, option);
  }

  //! The largest item of the whole array, to `*d_out` on every rank; as `fold::DeviceReduce::Max`.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Max(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Shards& shards,
                         ncclComm_t comm,
                         cudaStream_t stream,
                         OptionT option = {})
  {
    return Extremum<true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, shards, fold::detail::every_rank, comm, stream, option);
  }

  //! `Max`, the result on `root.rank` only.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Max(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Shards& shards,
                         Root root,
                         ncclComm_t comm,
                         cudaStream_t stream,
                         OptionT option = {})
  {
    if (root.rank < 0)
    {
      return cudaErrorInvalidValue;
    }
    return Extremum<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, shards, root.rank, comm, stream, option);
  }

  //! The smallest item of the whole array and its index in the whole array (`int64_t`; the first on ties), on
  //! every rank; as `fold::DeviceReduce::ArgMin` (empty: the identity and -1).
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename OptionT = run_to_run_t>
  static cudaError_t ArgMin(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            ExtremumOutIteratorT d_min_out,
                            IndexOutIteratorT d_index_out,
                            const Shards& shards,
                            ncclComm_t comm,
                            cudaStream_t stream,
                            OptionT option = {})
  {
    return ArgExtremum<false>(d_temp_storage,
                              temp_storage_bytes,
                              d_in,
                              d_min_out,
                              d_index_out,
                              shards,
                              fold::detail::every_rank,
                              comm,
                              stream,
                              option);
  }

  //! `ArgMin`, the result on `root.rank` only.
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename OptionT = run_to_run_t>
  static cudaError_t ArgMin(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            ExtremumOutIteratorT d_min_out,
                            IndexOutIteratorT d_index_out,
                            const Shards& shards,
                            Root root,
                            ncclComm_t comm,
                            cudaStream_t stream,
                            OptionT option = {})
  {
    if (root.rank < 0)
    {
      return cudaErrorInvalidValue;
    }
    return ArgExtremum<false>(
        d_temp_storage, temp_storage_bytes, d_in, d_min_out, d_index_out, shards, root.rank, comm, stream, option);
  }

  //! The largest item of the whole array and its index in the whole array, on every rank; as
  //! `fold::DeviceReduce::ArgMax`.
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename OptionT = run_to_run_t>
  static cudaError_t ArgMax(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            ExtremumOutIteratorT d_max_out,
                            IndexOutIteratorT d_index_out,
                            const Shards& shards,
                            ncclComm_t comm,
                            cudaStream_t stream,
                            OptionT option = {})
  {
    return ArgExtremum<true>(d_temp_storage,
                             temp_storage_bytes,
                             d_in,
                             d_max_out,
                             d_index_out,
                             shards,
                             fold::detail::every_rank,
                             comm,
                             stream,
                             option);
  }

  //! `ArgMax`, the result on `root.rank` only.
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename OptionT = run_to_run_t>
  static cudaError_t ArgMax(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            ExtremumOutIteratorT d_max_out,
                            IndexOutIteratorT d_index_out,
                            const Shards& shards,
                            Root root,
                            ncclComm_t comm,
                            cudaStream_t stream,
                            OptionT option = {})
  {
    if (root.rank < 0)
    {
      return cudaErrorInvalidValue;
    }
    return ArgExtremum<true>(
        d_temp_storage, temp_storage_bytes, d_in, d_max_out, d_index_out, shards, root.rank, comm, stream, option);
  }

  //! `init op f(x[0]) op ... op f(x[n - 1])` over the whole array, on every rank; as
  //! `fold::DeviceReduce::TransformReduce`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename TransformOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t TransformReduce(void* d_temp_storage,
                                     std::size_t& temp_storage_bytes,
                                     InputIteratorT d_in,
                                     OutputIteratorT d_out,
                                     const Shards& shards,
                                     ReductionOpT reduction_op,
                                     TransformOpT transform_op,
                                     T init,
                                     ncclComm_t comm,
                                     cudaStream_t stream,
                                     OptionT option = {})
  {
    return TransformReduceTo(d_temp_storage,
                             temp_storage_bytes,
                             d_in,
                             d_out,
                             shards,
                             reduction_op,
                             transform_op,
                             init,
                             fold::detail::every_rank,
                             comm,
                             stream,
                             option);
  }

  //! `TransformReduce`, the result on `root.rank` only.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename TransformOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t TransformReduce(void* d_temp_storage,
                                     std::size_t& temp_storage_bytes,
                                     InputIteratorT d_in,
                                     OutputIteratorT d_out,
                                     const Shards& shards,
                                     ReductionOpT reduction_op,
                                     TransformOpT transform_op,
                                     T init,
                                     Root root,
                                     ncclComm_t comm,
                                     cudaStream_t stream,
                                     OptionT option = {})
  {
    if (root.rank < 0)
    {
      return cudaErrorInvalidValue;
    }
    return TransformReduceTo(d_temp_storage,
                             temp_storage_bytes,
                             d_in,
                             d_out,
                             shards,
                             reduction_op,
                             transform_op,
                             init,
                             root.rank,
                             comm,
                             stream,
                             option);
  }

  //! The granule of `Reduce(…, reduction_op, init …)` over `total_items` items read through `InputIteratorT`, `T`
  //! the type of `init`, on the current device: when every rank but the last holds a multiple of it, the result
  //! has the same bits as `fold::DeviceReduce::Reduce` on one GPU. 1 for exact reductions (any shards will do);
  //! for inexact ones the unit of the single-GPU plan, `K` tiles with `K` the smallest power of two that cuts
  //! `total_items` into at most 16384 units (for float sums on sm_90: 8192 items up to 2^27 items, then doubling).
  template <typename InputIteratorT,
            typename ReductionOpT = fold::Sum,
            typename T            = fold::detail::sum_init_t<fold::detail::value_t<InputIteratorT>>,
            typename OptionT      = run_to_run_t>
  static cudaError_t Granule(std::int64_t total_items, std::int64_t& granule, OptionT = {})
  {
    using AccumT = fold::detail::accumulator_t<ReductionOpT, T, fold::detail::value_t<InputIteratorT>>;
    return fold::detail::sharded_granule<InputIteratorT, ReductionOpT, AccumT, fold::detail::tuning_t<OptionT>>(
        total_items, granule);
  }

private:
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t ReduceTo(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT d_in,
                              OutputIteratorT d_out,
                              const Shards& shards,
                              ReductionOpT reduction_op,
                              T init,
                              int root,
                              ncclComm_t comm,
                              cudaStream_t stream,
                              OptionT option)
  {
    return detail::with_exchange(comm,
                                 [&](detail::NcclExchange& exchange)
                                 {
                                   return detail::Sharded::Reduce(d_temp_storage,
                                                                  temp_storage_bytes,
                                                                  d_in,
                                                                  d_out,
                                                                  shards,
                                                                  root,
                                                                  reduction_op,
                                                                  init,
                                                                  exchange,
                                                                  stream,
                                                                  option);
                                 });
  }
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t SumTo(void* d_temp_storage,
                           std::size_t& temp_storage_bytes,
                           InputIteratorT d_in,
                           OutputIteratorT d_out,
                           const Shards& shards,
                           int root,
                           ncclComm_t comm,
                           cudaStream_t stream,
                           OptionT option)
  {
    return detail::with_exchange(
        comm,
        [&](detail::NcclExchange& exchange)
        {
          return detail::Sharded::Sum(
              d_temp_storage, temp_storage_bytes, d_in, d_out, shards, root, exchange, stream, option);
        });
  }
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename TransformOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t TransformReduceTo(void* d_temp_storage,
                                       std::size_t& temp_storage_bytes,
                                       InputIteratorT d_in,
                                       OutputIteratorT d_out,
                                       const Shards& shards,
                                       ReductionOpT reduction_op,
                                       TransformOpT transform_op,
                                       T init,
                                       int root,
                                       ncclComm_t comm,
                                       cudaStream_t stream,
                                       OptionT option)
  {
    return detail::with_exchange(comm,
                                 [&](detail::NcclExchange& exchange)
                                 {
                                   return detail::Sharded::TransformReduce(d_temp_storage,
                                                                           temp_storage_bytes,
                                                                           d_in,
                                                                           d_out,
                                                                           shards,
                                                                           root,
                                                                           reduction_op,
                                                                           transform_op,
                                                                           init,
                                                                           exchange,
                                                                           stream,
                                                                           option);
                                 });
  }
  template <bool ForMax, typename InputIteratorT, typename OutputIteratorT, typename OptionT>
  static cudaError_t Extremum(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT d_in,
                              OutputIteratorT d_out,
                              const Shards& shards,
                              int root,
                              ncclComm_t comm,
                              cudaStream_t stream,
                              OptionT option)
  {
    return detail::with_exchange(
        comm,
        [&](detail::NcclExchange& exchange)
        {
          return detail::Sharded::Extremum<ForMax>(
              d_temp_storage, temp_storage_bytes, d_in, d_out, shards, root, exchange, stream, option);
        });
  }

  template <bool ForMax,
            typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename OptionT>
  static cudaError_t ArgExtremum(void* d_temp_storage,
                                 std::size_t& temp_storage_bytes,
                                 InputIteratorT d_in,
                                 ExtremumOutIteratorT d_extremum_out,
                                 IndexOutIteratorT d_index_out,
                                 const Shards& shards,
                                 int root,
                                 ncclComm_t comm,
                                 cudaStream_t stream,
                                 OptionT option)
  {
    return detail::with_exchange(comm,
                                 [&](detail::NcclExchange& exchange)
                                 {
                                   return detail::Sharded::ArgExtremum<ForMax>(d_temp_storage,
                                                                               temp_storage_bytes,
                                                                               d_in,
                                                                               d_extremum_out,
                                                                               d_index_out,
                                                                               shards,
                                                                               root,
                                                                               exchange,
                                                                               stream,
                                                                               option);
                                 });
  }
};

} // namespace nccl
FOLD_NAMESPACE_END
