// SPDX-License-Identifier: Apache-2.0
//! @file
//! fold::DeviceSegmentedReduce: one reduction per segment of a sequence, with CUB's calling conventions.
#pragma once

#include <fold/util/macros.cuh>

#include <fold/detail/extremum.cuh>
#include <fold/detail/one_call.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/dispatch/dispatch_segmented_reduce.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/nvtx.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN

namespace detail
{
//! Offset iterators, as opposed to the integer segment size of the fixed-size overloads.
template <typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
using enable_if_offsets_t =
    std::enable_if_t<!std::is_integral_v<BeginOffsetIteratorT> && !std::is_integral_v<EndOffsetIteratorT>, int>;
} // namespace detail

//! Segmented reductions: segment `i` is `[d_in + d_begin_offsets[i], d_in + d_end_offsets[i])`, and its result is
//! written to `d_out[i]`. Segments may be empty (an end at or before its begin), may overlap and may come in any
//! order; segment `i` reads only its own items.
//!
//! The calls are CUB 3.0.1's (begin and end offset iterators, an `int64_t` segment count) plus overloads for
//! segments of one fixed size (`segment_size` items each, back to back from `d_in`). The conventions of
//! `DeviceReduce` hold: the two-call temporary storage API, stream order without host synchronisation or
//! allocation, graph capture, `cudaError_t` results (`cudaErrorInvalidValue` for a negative count or segment
//! size, a null pointer argument with segments to reduce, or too little temporary storage, checked before
//! anything is launched; docs/errors.md has the whole table), operators that need only be associative (the items of a
//! segment are combined in index order unless the operator is commutative, see `is_commutative`), and results that are
//! the same bits on every run: a segment's result depends only on its items, never on the other segments.
//!
//! The trailing argument after `stream` is as for `DeviceReduce`: `fold::run_to_run` (the default),
//! `fold::gpu_to_gpu` (the same bits on every architecture: the segments' tiles are the canonical ones) or
//! `fold::tuned<T>`. A run shows in a profiler as an NVTX range named after the call.
//!
//! Zero segments: the size query still writes `temp_storage_bytes` (CUB leaves it unwritten), and the run
//! launches nothing. A call through offsets clears a few bytes of the temporary storage (with a one-block kernel) and
//! launches two kernels; which segment is reduced by a group of lanes, a warp, a block or the whole grid is decided
//! on the device from its length (docs/semantics.md, "Segmented"). A call with a fixed segment size clears nothing
//! and launches one kernel (two when a segment is longer than `segmented_policy().block_tiles` tiles), with the
//! same trees.
//!
//! @code
//! // examples/segmented.cu [offsets]
//! // Segment i is [d_offsets[i], d_offsets[i + 1]): the begins are d_offsets, the ends d_offsets + 1.
//! const int* d_begins = d_offsets;
//! const int* d_ends   = d_offsets + 1;
//! size_t bytes        = 0;
//! CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, bytes, d_in, d_sums, num_segments, d_begins, d_ends, stream));
//! void* d_temp = nullptr;
//! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
//! CHECK(fold::DeviceSegmentedReduce::Sum(d_temp, bytes, d_in, d_sums, num_segments, d_begins, d_ends, stream));
//! @endcode
//!
//! and the rows of a matrix, through the fixed-size overloads:
//!
//! @code
//! // examples/segmented.cu [fixed-size]
//! // The rows of a row-major rows x cols matrix: segment i is [i * cols, (i + 1) * cols).
//! size_t row_bytes = 0;
//! CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, row_bytes, d_in, d_row_sums, rows, cols, stream));
//! void* d_row_temp = nullptr;
//! CHECK(cudaMallocAsync(&d_row_temp, row_bytes, stream));
//! CHECK(fold::DeviceSegmentedReduce::Sum(d_row_temp, row_bytes, d_in, d_row_sums, rows, cols, stream));
//! @endcode
struct DeviceSegmentedReduce
{
  //! `d_out[i] = init op x[b] op x[b + 1] op ... op x[e - 1]` for each segment `[b, e)`; `init` for an empty one.
  //! The accumulator is `decltype(reduction_op(init, *d_in))` and must be trivially copyable.
  //!
  //! @param[in] d_temp_storage   device storage, or `nullptr` to query its size
  //! @param[in,out] temp_storage_bytes   the size of `d_temp_storage`; written when querying
  //! @param[in] d_in   the items
  //! @param[out] d_out   one result per segment
  //! @param[in] num_segments   the number of segments (>= 0)
  //! @param[in] d_begin_offsets   the first item of each segment, as an offset from `d_in`
  //! @param[in] d_end_offsets   one past the last item of each segment (often `d_begin_offsets + 1`)
  //! @param[in] reduction_op   the binary operator
  //! @param[in] init   the initial value of every segment
  //! @param[in] stream   the stream to run on (default: the default stream)
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT /*option*/  = {})
  {
    using InputT = detail::value_t<InputIteratorT>;
    static_assert(std::is_invocable_v<ReductionOpT, const T&, const InputT&>,
                  "fold::DeviceSegmentedReduce::Reduce: reduction_op must be callable as reduction_op(init, *d_in)");
    using AccumT = detail::accumulator_t<ReductionOpT, T, InputT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceSegmentedReduce::Reduce");
    return detail::segmented_reduce<AccumT, detail::tuning_t<OptionT>>(d_temp_storage,
                                                                       temp_storage_bytes,
                                                                       d_in,
                                                                       d_out,
                                                                       num_segments,
                                                                       d_begin_offsets,
                                                                       d_end_offsets,
                                                                       reduction_op,
                                                                       detail::InitialValue<T>{init},
                                                                       detail::CastTo<AccumT>{},
                                                                       stream);
  }

  //! One call: as the two-call `Reduce`, with its temporary storage allocated and freed on `stream` (stream-ordered,
  //! from the device's current pool or `fold::from_pool(pool)`; see `DeviceReduce`'s one-call forms). Returns
  //! `cudaErrorMemoryAllocation`, launching nothing, when the pool cannot serve.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Reduce(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return Reduce(d_temp_storage,
                                            temp_storage_bytes,
                                            d_in,
                                            d_out,
                                            num_segments,
                                            d_begin_offsets,
                                            d_end_offsets,
                                            reduction_op,
                                            init,
                                            stream,
                                            option);
                            });
  }

  //! The sum of each segment (0 for an empty one), accumulated as `DeviceReduce::Sum` does (16-bit floats in
  //! `float`, small integers in `int`). Parameters as for `Reduce`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets,
                         cudaStream_t stream = 0,
                         OptionT /*option*/  = {})
  {
    using InputT  = detail::value_t<InputIteratorT>;
    using OutputT = detail::non_void_value_t<OutputIteratorT, InputT>;
    using InitT   = detail::sum_init_t<OutputT>;
    using AccumT  = detail::accumulator_t<fold::Sum, InitT, InputT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceSegmentedReduce::Sum");
    return detail::segmented_reduce<AccumT, detail::tuning_t<OptionT>>(d_temp_storage,
                                                                       temp_storage_bytes,
                                                                       d_in,
                                                                       d_out,
                                                                       num_segments,
                                                                       d_begin_offsets,
                                                                       d_end_offsets,
                                                                       fold::Sum{},
                                                                       detail::InitialValue<InitT>{InitT{}},
                                                                       detail::CastTo<AccumT>{},
                                                                       stream);
  }

  //! One call: as the two-call `Sum` (see `Reduce`'s one-call form).
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Sum(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return Sum(d_temp_storage,
                                         temp_storage_bytes,
                                         d_in,
                                         d_out,
                                         num_segments,
                                         d_begin_offsets,
                                         d_end_offsets,
                                         stream,
                                         option);
                            });
  }

  //! The smallest item of each segment; the identity of min for an empty one. Floating-point as
  //! `DeviceReduce::Min` (NaN first, -0.0 below +0.0). Parameters as for `Reduce`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Min(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceSegmentedReduce::Min");
    return Extremum<false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream, option);
  }

  //! One call: as the two-call `Min` (see `Reduce`'s one-call form).
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Min(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return Min(d_temp_storage,
                                         temp_storage_bytes,
                                         d_in,
                                         d_out,
                                         num_segments,
                                         d_begin_offsets,
                                         d_end_offsets,
                                         stream,
                                         option);
                            });
  }

  //! The largest item of each segment; the identity of max for an empty one. Floating-point as
  //! `DeviceReduce::Max`. Parameters as for `Reduce`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Max(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceSegmentedReduce::Max");
    return Extremum<true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream, option);
  }

  //! One call: as the two-call `Max` (see `Reduce`'s one-call form).
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t Max(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return Max(d_temp_storage,
                                         temp_storage_bytes,
                                         d_in,
                                         d_out,
                                         num_segments,
                                         d_begin_offsets,
                                         d_end_offsets,
                                         stream,
                                         option);
                            });
  }

  //! The smallest item of each segment and its index within the segment, as a `KeyValuePair` (`key`: the
  //! index, `value`: the item; by default `KeyValuePair<int, T>`, as in CUB); the first on ties. An empty segment
  //! gets index -1 and the identity of min (CUB writes index 1). Floating-point as `DeviceReduce::ArgMin`.
  //! Parameters as for `Reduce`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t ArgMin(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceSegmentedReduce::ArgMin");
    return ArgExtremum<false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream, option);
  }

  //! One call: as the two-call `ArgMin` (see `Reduce`'s one-call form).
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t ArgMin(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return ArgMin(d_temp_storage,
                                            temp_storage_bytes,
                                            d_in,
                                            d_out,
                                            num_segments,
                                            d_begin_offsets,
                                            d_end_offsets,
                                            stream,
                                            option);
                            });
  }

  //! The largest item of each segment and its index within the segment; the first on ties; index -1 and the
  //! identity of max for an empty segment. Parameters as for `ArgMin`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t ArgMax(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceSegmentedReduce::ArgMax");
    return ArgExtremum<true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream, option);
  }

  //! One call: as the two-call `ArgMax` (see `Reduce`'s one-call form).
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT                                                      = run_to_run_t,
            detail::enable_if_offsets_t<BeginOffsetIteratorT, EndOffsetIteratorT> = 0>
  static cudaError_t ArgMax(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return ArgMax(d_temp_storage,
                                            temp_storage_bytes,
                                            d_in,
                                            d_out,
                                            num_segments,
                                            d_begin_offsets,
                                            d_end_offsets,
                                            stream,
                                            option);
                            });
  }

  //! @name Fixed-size segments
  //! Segment `i` is `[d_in + i * segment_size, d_in + (i + 1) * segment_size)` (`segment_size >= 0`, and
  //! `num_segments * segment_size <= 2^63 - 1`); the rows of a row-major matrix, for instance. Otherwise as the
  //! calls above.
  //! @{
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t Reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            std::int64_t segment_size,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return with_fixed_offsets(num_segments,
                              segment_size,
                              [&](auto begins, auto ends)
                              {
                                return Reduce(d_temp_storage,
                                              temp_storage_bytes,
                                              d_in,
                                              d_out,
                                              num_segments,
                                              begins,
                                              ends,
                                              reduction_op,
                                              init,
                                              stream,
                                              option);
                              });
  }

  //! One call: as the two-call fixed-size `Reduce` (see `Reduce`'s one-call form).
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t Reduce(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            std::int64_t segment_size,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return Reduce(d_temp_storage,
                                            temp_storage_bytes,
                                            d_in,
                                            d_out,
                                            num_segments,
                                            segment_size,
                                            reduction_op,
                                            init,
                                            stream,
                                            option);
                            });
  }

  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         std::int64_t segment_size,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return with_fixed_offsets(
        num_segments,
        segment_size,
        [&](auto begins, auto ends)
        { return Sum(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, begins, ends, stream, option); });
  }

  //! One call: as the two-call fixed-size `Sum` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Sum(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         std::int64_t segment_size,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
        { return Sum(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, segment_size, stream, option); });
  }

  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Min(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         std::int64_t segment_size,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return with_fixed_offsets(
        num_segments,
        segment_size,
        [&](auto begins, auto ends)
        { return Min(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, begins, ends, stream, option); });
  }

  //! One call: as the two-call fixed-size `Min` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Min(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         std::int64_t segment_size,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
        { return Min(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, segment_size, stream, option); });
  }

  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Max(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         std::int64_t segment_size,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return with_fixed_offsets(
        num_segments,
        segment_size,
        [&](auto begins, auto ends)
        { return Max(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, begins, ends, stream, option); });
  }

  //! One call: as the two-call fixed-size `Max` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Max(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         std::int64_t num_segments,
                         std::int64_t segment_size,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
        { return Max(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, segment_size, stream, option); });
  }

  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t ArgMin(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            std::int64_t segment_size,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return with_fixed_offsets(
        num_segments,
        segment_size,
        [&](auto begins, auto ends) {
          return ArgMin(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, begins, ends, stream, option);
        });
  }

  //! One call: as the two-call fixed-size `ArgMin` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t ArgMin(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            std::int64_t segment_size,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
          return ArgMin(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, segment_size, stream, option);
        });
  }

  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t ArgMax(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            std::int64_t segment_size,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return with_fixed_offsets(
        num_segments,
        segment_size,
        [&](auto begins, auto ends) {
          return ArgMax(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, begins, ends, stream, option);
        });
  }

  //! One call: as the two-call fixed-size `ArgMax` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t ArgMax(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            std::int64_t num_segments,
                            std::int64_t segment_size,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
          return ArgMax(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, segment_size, stream, option);
        });
  }
  //! @}

private:
  //! `call(begins, ends)` with the offsets of `num_segments` segments of `segment_size` items; a negative size,
  //! or segments of more than 2^63 - 1 items in all, are rejected (a negative count is, by `call`).
  template <typename CallT>
  static cudaError_t with_fixed_offsets(std::int64_t num_segments, std::int64_t segment_size, CallT&& call)
  {
    if (segment_size < 0 || (segment_size > 0 && num_segments > INT64_MAX / segment_size))
    {
      return cudaErrorInvalidValue;
    }
    return call(detail::FixedOffsets{segment_size, 0}, detail::FixedOffsets{segment_size, segment_size});
  }

  template <bool ForMax,
            typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT>
  static cudaError_t Extremum(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT d_in,
                              OutputIteratorT d_out,
                              std::int64_t num_segments,
                              BeginOffsetIteratorT d_begin_offsets,
                              EndOffsetIteratorT d_end_offsets,
                              cudaStream_t stream,
                              OptionT)
  {
    using InputT     = detail::value_t<InputIteratorT>;
    using ReductionT = detail::ExtremumReduction<InputT, ForMax>;
    using AccumT     = typename ReductionT::AccumT;
    return detail::segmented_reduce<AccumT, detail::tuning_t<OptionT>>(
        d_temp_storage,
        temp_storage_bytes,
        d_in,
        detail::extremum_output<InputT, ForMax>(d_out),
        num_segments,
        d_begin_offsets,
        d_end_offsets,
        typename ReductionT::Op{},
        detail::InitialValue<AccumT>{ReductionT::identity()},
        typename ReductionT::ToValue{},
        stream);
  }

  // ArgMin/ArgMax reduce packed pairs (`PackedArgReduction`: a `uint64_t` for values of up to 32 bits, three 32-bit
  // words for 64-bit ones) through offsets of up to 32 bits, where every index within a segment fits 32 bits;
  // through 64-bit offsets and the fixed-size overload, and over values of other types, (int64 index, value) pairs.
  // Packed pairs took ArgMax through 32-bit offsets to 0.75-0.99 of the time on an H100 (one item 1.05), but the
  // fixed-size overload's segments to 0.90-1.05 (docs/performance.md, "Segmented ArgMin/ArgMax as packed pairs").
  template <bool ForMax,
            typename InputIteratorT,
            typename OutputIteratorT,
            typename BeginOffsetIteratorT,
            typename EndOffsetIteratorT,
            typename OptionT>
  static cudaError_t ArgExtremum(void* d_temp_storage,
                                 std::size_t& temp_storage_bytes,
                                 InputIteratorT d_in,
                                 OutputIteratorT d_out,
                                 std::int64_t num_segments,
                                 BeginOffsetIteratorT d_begin_offsets,
                                 EndOffsetIteratorT d_end_offsets,
                                 cudaStream_t stream,
                                 OptionT)
  {
    using InputT     = detail::value_t<InputIteratorT>;
    using ReductionT = detail::ExtremumReduction<InputT, ForMax>;
    using PackedT    = detail::PackedArgReduction<InputT, ForMax>;
    using PairT      = detail::non_void_value_t<OutputIteratorT, KeyValuePair<int, InputT>>;
    static_assert(std::is_integral_v<decltype(PairT::key)>,
                  "fold::DeviceSegmentedReduce: the output of ArgMin/ArgMax holds KeyValuePair<integer, T>");
    using OutT = detail::PairOutput<OutputIteratorT, InputT, ForMax>;
    // The reduction in `AccumT`, written through `out`; generic, so that a path is instantiated only where taken.
    auto reduce = [&](auto accum, auto out, auto op, auto to_pair)
    {
      return detail::segmented_reduce<decltype(accum), detail::tuning_t<OptionT>>(
          d_temp_storage,
          temp_storage_bytes,
          d_in,
          out,
          num_segments,
          d_begin_offsets,
          d_end_offsets,
          op,
          detail::EmptyResult<typename ReductionT::PairT>{ReductionT::empty_pair()},
          to_pair,
          stream);
    };
    constexpr bool indices_fit_32_bits =
        sizeof(detail::segment_offset_t<BeginOffsetIteratorT, EndOffsetIteratorT>) <= 4;
    if constexpr (PackedT::applies && indices_fit_32_bits)
    {
      return reduce(typename PackedT::PackedPair{},
                    detail::UnpackArg<OutT, PackedT>{OutT{d_out}},
                    typename PackedT::Op{},
                    typename PackedT::Pack{});
    }
    else
    {
      return reduce(
          typename ReductionT::PairT{}, OutT{d_out}, typename ReductionT::ArgOp{}, typename ReductionT::ToPair{});
    }
  }
};

FOLD_NAMESPACE_END
