// SPDX-License-Identifier: Apache-2.0
//! @file
//! fold::DeviceReduceAxes: the reduction of a row-major array over any set of its axes.
#pragma once

#include <fold/util/macros.cuh>

#include <fold/detail/extremum.cuh>
#include <fold/detail/one_call.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/dispatch/dispatch_reduce_axes.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/extents.cuh>
#include <fold/util/nvtx.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

FOLD_NAMESPACE_BEGIN

//! Reductions of a contiguous row-major array of up to `max_rank` (8) dimensions over a set of its axes, like
//! `torch.sum(x, dim)` or `numpy.sum(x, axis)`: the output has the kept shape (the reduced axes dropped), row-major.
//!
//! @code
//! // examples/axes.cu [axes]
//! // x: float[N][H][W][C], row-major; summed over axes 0, 1 and 2 (N, H, W): sums is float[C].
//! size_t bytes = 0;
//! CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_x, d_sums, {N, H, W, C}, {0, 1, 2}, stream));
//! void* d_temp = nullptr;
//! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
//! CHECK(fold::DeviceReduceAxes::Sum(d_temp, bytes, d_x, d_sums, {N, H, W, C}, {0, 1, 2}, stream));
//! @endcode
//!
//! Extents of 1 are dropped and adjacent reduced (or kept) axes merged; then each remaining group of reduced axes
//! is removed innermost first, by the segmented reduction when it is the last dimension and by a kernel in which
//! each thread owns an output column otherwise (docs/architecture.md, "Axis reductions"). The conventions of
//! `DeviceReduce` hold: the two-call temporary storage API (the size depends on the shape, the axes, the types and
//! the device), stream order, no host synchronisation or allocation, `cudaError_t` results, and results that are
//! the same bits on every run. Operators need only be associative: the items of each output are combined in
//! row-major order. An empty reduced axis gives `init` everywhere; an empty kept axis, no output at all.
//!
//! `cudaErrorInvalidValue`: a rank above 8, a negative extent, extents whose product exceeds 2^63 - 1, an axis
//! outside `[0, rank)` or named twice, a null pointer argument when there is something to read or write, or too
//! little temporary storage (all checked before anything is launched). docs/errors.md has the whole table.
struct DeviceReduceAxes
{
  //! `out[k] = init op x[k, r0] op x[k, r1] op ...` over the reduced index tuples `r` in row-major order, for each
  //! kept index tuple `k`. The accumulator is `decltype(reduction_op(init, *d_in))`; it must be trivially
  //! copyable. `fold::Min` or `fold::Max` over floating-point items with an `init` of the items' type runs as `Min`
  //! and `Max` do (the same bits, fewer instructions an item).
  //!
  //! @param[in] d_temp_storage   device storage, or `nullptr` to query its size
  //! @param[in,out] temp_storage_bytes   the size of `d_temp_storage`; written when querying
  //! @param[in] d_in   the array, row-major and contiguous
  //! @param[out] d_out   the result, of the kept shape, row-major
  //! @param[in] shape   the extents, outermost first
  //! @param[in] axes   the axes to reduce (any order)
  //! @param[in] reduction_op   the binary operator
  //! @param[in] init   the initial value of every output
  //! @param[in] stream   the stream to run on (default: the default stream)
  //! @param[in] option   `fold::run_to_run` (default), `fold::gpu_to_gpu` or `fold::tuned<T>`, as for `DeviceReduce`
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t Reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            const Extents& shape,
                            const Axes& axes,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT             = {})
  {
    using InputT = detail::value_t<InputIteratorT>;
    static_assert(std::is_invocable_v<ReductionOpT, const T&, const InputT&>,
                  "fold::DeviceReduceAxes::Reduce: reduction_op must be callable as reduction_op(init, *d_in)");
    using AccumT = detail::accumulator_t<ReductionOpT, T, InputT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduceAxes::Reduce");
    constexpr bool max        = std::is_same_v<ReductionOpT, fold::Max>;
    constexpr bool min_or_max = max || std::is_same_v<ReductionOpT, fold::Min>;
    constexpr bool keyed      = min_or_max && std::is_same_v<T, InputT> && detail::ExtremumValues<InputT, max>::keyed;
    if constexpr (keyed)
    {
      return extremum<max, OptionT>(d_temp_storage, temp_storage_bytes, d_in, d_out, shape, axes, init, stream);
    }
    else
    {
      return reduce<AccumT, OptionT>(d_temp_storage,
                                     temp_storage_bytes,
                                     d_in,
                                     d_out,
                                     shape,
                                     axes,
                                     reduction_op,
                                     detail::InitialValue<T>{init},
                                     stream);
    }
  }

  //! One call: as the two-call `Reduce`, with its temporary storage allocated and freed on `stream` (stream-ordered,
  //! from the device's current pool or `fold::from_pool(pool)`; see `DeviceReduce`'s one-call forms). Returns
  //! `cudaErrorMemoryAllocation`, launching nothing, when the pool cannot serve.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename OptionT = run_to_run_t>
  static cudaError_t Reduce(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            const Extents& shape,
                            const Axes& axes,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
          return Reduce(
              d_temp_storage, temp_storage_bytes, d_in, d_out, shape, axes, reduction_op, init, stream, option);
        });
  }

  //! The sums over `axes` (0 where a reduced axis is empty), accumulated as `DeviceReduce::Sum` does.
  //! Parameters as for `Reduce`.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Extents& shape,
                         const Axes& axes,
                         cudaStream_t stream = 0,
                         OptionT             = {})
  {
    using InputT  = detail::value_t<InputIteratorT>;
    using OutputT = detail::non_void_value_t<OutputIteratorT, InputT>;
    using InitT   = detail::sum_init_t<OutputT>;
    using AccumT  = detail::accumulator_t<fold::Sum, InitT, InputT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduceAxes::Sum");
    return reduce<AccumT, OptionT>(d_temp_storage,
                                   temp_storage_bytes,
                                   d_in,
                                   d_out,
                                   shape,
                                   axes,
                                   fold::Sum{},
                                   detail::InitialValue<InitT>{},
                                   stream);
  }

  //! One call: as the two-call `Sum` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Sum(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Extents& shape,
                         const Axes& axes,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
                              return Sum(d_temp_storage, temp_storage_bytes, d_in, d_out, shape, axes, stream, option);
                            });
  }

  //! The smallest item over `axes`, like `torch.amin(x, dims)`; the identity of min where a reduced axis is empty
  //! (+infinity for floating-point types, the largest value for integers). Floating-point as `DeviceReduce::Min`: the
  //! canonical quiet NaN where any item is a NaN, and -0.0 below +0.0. Parameters as for `Reduce`.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Min(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Extents& shape,
                         const Axes& axes,
                         cudaStream_t stream = 0,
                         OptionT             = {})
  {
    using InputT = detail::value_t<InputIteratorT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduceAxes::Min");
    return extremum<false, OptionT>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, shape, axes, detail::min_identity<InputT>(), stream);
  }

  //! One call: as the two-call `Min` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Min(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Extents& shape,
                         const Axes& axes,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
                              return Min(d_temp_storage, temp_storage_bytes, d_in, d_out, shape, axes, stream, option);
                            });
  }

  //! The largest item over `axes`, like `torch.amax(x, dims)`; the identity of max where a reduced axis is empty
  //! (-infinity for floating-point types, the lowest value for integers). Floating-point as `DeviceReduce::Max`: the
  //! canonical quiet NaN where any item is a NaN, and +0.0 above -0.0. Parameters as for `Reduce`.
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Max(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Extents& shape,
                         const Axes& axes,
                         cudaStream_t stream = 0,
                         OptionT             = {})
  {
    using InputT = detail::value_t<InputIteratorT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduceAxes::Max");
    return extremum<true, OptionT>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, shape, axes, detail::max_identity<InputT>(), stream);
  }

  //! One call: as the two-call `Max` (see `Reduce`'s one-call form).
  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT = run_to_run_t>
  static cudaError_t Max(InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const Extents& shape,
                         const Axes& axes,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
                              return Max(d_temp_storage, temp_storage_bytes, d_in, d_out, shape, axes, stream, option);
                            });
  }

private:
  // Min and Max (`ForMax`) with `init`, an item's value: fold's operator over the values as `ExtremumValues` carries
  // them, as DeviceReduce's Min and Max do (order keys for floating-point items, turned back when written: one
  // integer comparison an item, where fold::Max over floats tests both sides for NaN and compares their keys).
  template <bool ForMax, typename OptionT, typename InputIteratorT, typename OutputIteratorT, typename T>
  static cudaError_t extremum(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT d_in,
                              OutputIteratorT d_out,
                              const Extents& shape,
                              const Axes& axes,
                              const T& init,
                              cudaStream_t stream)
  {
    using InputT     = detail::value_t<InputIteratorT>;
    using ReductionT = detail::ExtremumReduction<InputT, ForMax>;
    using AccumT     = typename ReductionT::AccumT;
    return reduce<AccumT, OptionT, typename ReductionT::ToValue>(
        d_temp_storage,
        temp_storage_bytes,
        d_in,
        detail::extremum_output<InputT, ForMax>(d_out),
        shape,
        axes,
        typename ReductionT::Op{},
        detail::InitialValue<AccumT>{typename ReductionT::Values{}(init)},
        stream);
  }

  template <typename AccumT,
            typename OptionT,
            typename TransformT = detail::CastTo<AccumT>,
            typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename InitT>
  static cudaError_t reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            const Extents& shape,
                            const Axes& axes,
                            ReductionOpT reduction_op,
                            InitT init,
                            cudaStream_t stream)
  {
    static_assert(std::is_trivially_copyable_v<AccumT> && std::is_default_constructible_v<AccumT>,
                  "fold::DeviceReduceAxes: the accumulator type must be trivially copyable and default-constructible");
    return detail::DispatchReduceAxes<InputIteratorT,
                                      OutputIteratorT,
                                      ReductionOpT,
                                      InitT,
                                      AccumT,
                                      detail::tuning_t<OptionT>,
                                      TransformT>::Dispatch(d_temp_storage,
                                                            temp_storage_bytes,
                                                            d_in,
                                                            d_out,
                                                            shape,
                                                            axes,
                                                            reduction_op,
                                                            init,
                                                            stream);
  }
};

FOLD_NAMESPACE_END
