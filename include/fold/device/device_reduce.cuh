// SPDX-License-Identifier: Apache-2.0
//! @file
//! fold::DeviceReduce: device-wide reductions with CUB's calling conventions.
#pragma once

#include <fold/util/macros.cuh>

#include <fold/detail/extremum.cuh>
#include <fold/detail/fused.cuh>
#include <fold/detail/one_call.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/dispatch/dispatch_reduce.cuh>
#include <fold/dispatch/dispatch_reduce_by_key.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/nvtx.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda_runtime_api.h>

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN

//! Device-wide reductions of a sequence of items in device-accessible memory.
//!
//! Every algorithm takes CUB's two calls. With `d_temp_storage == nullptr` it only writes the number of bytes
//! of temporary storage it needs to `temp_storage_bytes` and returns; called again with that much storage, it
//! runs. The size depends only on the types, `num_items` and the device, never shrinks as `num_items` grows,
//! and is never 0.
//!
//! @code
//! // examples/sum.cu [two-call]
//! size_t bytes = 0;
//! CHECK(fold::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, n, stream)); // 1. query the temporary storage
//! void* d_temp = nullptr;
//! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
//! CHECK(fold::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, stream)); // 2. run, ordered on `stream`
//! @endcode
//!
//! Common to every algorithm:
//! - The work is queued on `stream`: nothing synchronises with the host, nothing is allocated, nothing runs on
//!   another stream, and a call may be captured into a CUDA graph.
//! - `num_items` may be any integer type; 64-bit counts work end to end.
//! - `d_in` is a random-access iterator (a pointer, or e.g. a thrust counting or transform iterator); input
//!   through an aligned raw pointer of a primitive type is read with 16-byte vector loads.
//! - Return values: `cudaSuccess`; `cudaErrorInvalidValue` for a negative `num_items` or one above
//!   `max_num_items`, a null `d_in` with `num_items > 0`, a null output, or `temp_storage_bytes` smaller than the
//!   query returned (checked before anything is launched, so the outputs are left as they were); otherwise the
//!   error of the CUDA runtime call or kernel launch that failed (no device: `cudaErrorNoDevice`, or
//!   `cudaErrorInsufficientDriver` without a driver; a stream CUDA refuses, such as the legacy default stream
//!   while another stream is captured: `cudaErrorStreamCaptureImplicit`). Nothing throws, exits or prints.
//!   docs/errors.md has the whole table.
//! - Operators must be associative. A commutative operator (see `is_commutative`: fold's own, the standard
//!   arithmetic and bitwise functors, or yours through `fold::commutative(op)`) may see its operands in any
//!   order; any other operator sees them in index order: the result is `init op x[0] op ... op x[n - 1]` with
//!   some grouping of the operations.
//! - Reproducible: the same values give the same bits on every run, on any stream, at any grid size, whatever
//!   the temporary storage's address and the input's alignment; and with a trailing `fold::gpu_to_gpu`
//!   argument (after `stream`) on every architecture as well. docs/semantics.md gives the guarantees and the
//!   error bounds of floating-point sums. The trailing argument may also be `fold::tuned<MyTuning>`, a tuning of
//!   your own (see tuning/tuning_reduce.cuh).
//! - A run (not a size query) shows in a profiler's timeline as an NVTX range named after the call, e.g.
//!   `fold::DeviceReduce::Sum` (util/nvtx.cuh; `FOLD_DISABLE_NVTX` compiles them out).
struct DeviceReduce
{
  //! `init op x[0] op x[1] op ... op x[num_items - 1]`, written to `*d_out` (`init` when `num_items` is 0).
  //!
  //! The accumulator is `decltype(reduction_op(init, *d_in))`: an `init` of a wider type gives a wider
  //! accumulator (`float` init over `__half` input sums in `float`). It must be default-constructible and
  //! copyable. `reduction_op` is a `__host__ __device__` (or `__device__`) callable; it must be associative.
  //! Unless it is declared commutative (`fold::commutative(op)` or `fold::is_commutative`), the items are
  //! combined in index order (matrix products, "first"/"last" selections and the like are fine): for instance the
  //! composition of affine maps, in order,
  //!
  //! @code
  //! // examples/reduce_ordered.cu [operator]
  //! // The map x -> a * x + b, unsigned arithmetic: mod 2^32.
  //! struct Affine
  //! {
  //!   std::uint32_t a;
  //!   std::uint32_t b;
  //! };
  //!
  //! // Then{}(f, g): f, then g, the map x -> g.a * (f.a * x + f.b) + g.b. Associative but not commutative, so it is
  //! // passed as it is; fold::commutative(op) declares an operator whose operands may be swapped (a faster path).
  //! struct Then
  //! {
  //!   __host__ __device__ Affine operator()(Affine f, Affine g) const { return {g.a * f.a, g.a * f.b + g.b}; }
  //! };
  //! @endcode
  //!
  //! @code
  //! // examples/reduce_ordered.cu [ordered]
  //! // Then is not declared commutative, so the maps are composed in index order: d_maps[0] first.
  //! const Affine identity{1, 0}; // x -> x
  //! size_t bytes = 0;
  //! CHECK(fold::DeviceReduce::Reduce(nullptr, bytes, d_maps, d_out, n, Then{}, identity, stream));
  //! void* d_temp = nullptr;
  //! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  //! CHECK(fold::DeviceReduce::Reduce(d_temp, bytes, d_maps, d_out, n, Then{}, identity, stream));
  //! @endcode
  //!
  //! @param[in] d_temp_storage   device storage, or `nullptr` to query its size
  //! @param[in,out] temp_storage_bytes   the size of `d_temp_storage`; written when querying
  //! @param[in] d_in   the input items `[d_in, d_in + num_items)`
  //! @param[out] d_out   where the result is written, converted to its value type
  //! @param[in] num_items   the number of items (>= 0)
  //! @param[in] reduction_op   the binary operator
  //! @param[in] init   the initial value
  //! @param[in] stream   the stream to run on (default: the default stream)
  //! @param[in] option   `fold::run_to_run` (default), `fold::gpu_to_gpu` or `fold::tuned<T>`
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename NumItemsT,
            typename OptionT = run_to_run_t>
  static cudaError_t Reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            NumItemsT num_items,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT /*option*/  = {})
  {
    using InputT = detail::value_t<InputIteratorT>;
    static_assert(std::is_invocable_v<ReductionOpT, const T&, const InputT&>,
                  "fold::DeviceReduce::Reduce: reduction_op must be callable as reduction_op(init, *d_in)");
    using AccumT = detail::accumulator_t<ReductionOpT, T, InputT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::Reduce");
    return detail::reduce<AccumT, detail::tuning_t<OptionT>>(d_temp_storage,
                                                             temp_storage_bytes,
                                                             d_in,
                                                             d_out,
                                                             num_items,
                                                             reduction_op,
                                                             detail::InitialValue<T>{init},
                                                             detail::CastTo<AccumT>{},
                                                             stream);
  }

  //! The sum of the items, written to `*d_out` (0 when `num_items` is 0).
  //!
  //! The sum starts from a zero of the output's value type (the input's, when the output has none) and
  //! accumulates in `decltype(zero + item)`: integers narrower than `int` sum in `int`, as in CUB; `__half` and
  //! `__nv_bfloat16` sum in `float` and are converted once at the end (CUB sums them in 16 bits). Parameters
  //! as for `Reduce`.
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT, typename OptionT = run_to_run_t>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         NumItemsT num_items,
                         cudaStream_t stream = 0,
                         OptionT /*option*/  = {})
  {
    using InputT  = detail::value_t<InputIteratorT>;
    using OutputT = detail::non_void_value_t<OutputIteratorT, InputT>;
    using InitT   = detail::sum_init_t<OutputT>;
    using AccumT  = detail::accumulator_t<fold::Sum, InitT, InputT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::Sum");
    return detail::reduce<AccumT, detail::tuning_t<OptionT>>(d_temp_storage,
                                                             temp_storage_bytes,
                                                             d_in,
                                                             d_out,
                                                             num_items,
                                                             fold::Sum{},
                                                             detail::InitialValue<InitT>{InitT{}},
                                                             detail::CastTo<AccumT>{},
                                                             stream);
  }

  //! The smallest item, written to `*d_out`; for empty input the identity of min: +infinity for floating-point
  //! types, the largest value for integers. Floating-point: the canonical quiet NaN if any item is a NaN, and
  //! -0.0 below +0.0 (IEEE 754-2019 `minimum`; cub's result with NaNs depends on where they are). Exact: the
  //! same bits on every path and architecture. Parameters as for `Reduce`.
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT, typename OptionT = run_to_run_t>
  static cudaError_t Min(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         NumItemsT num_items,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::Min");
    return Extremum<false>(d_temp_storage, temp_storage_bytes, d_in, num_items, stream, option, d_out);
  }

  //! The largest item, written to `*d_out`; for empty input the identity of max: -infinity for floating-point
  //! types, the lowest value for integers. Floating-point: the canonical quiet NaN if any item is a NaN, and
  //! +0.0 above -0.0 (IEEE 754-2019 `maximum`). Parameters as for `Reduce`.
  template <typename InputIteratorT, typename OutputIteratorT, typename NumItemsT, typename OptionT = run_to_run_t>
  static cudaError_t Max(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         NumItemsT num_items,
                         cudaStream_t stream = 0,
                         OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::Max");
    return Extremum<true>(d_temp_storage, temp_storage_bytes, d_in, num_items, stream, option, d_out);
  }

  //! The smallest item to `*d_min_out` and its index (an `int64_t`) to `*d_index_out`; on ties the first
  //! occurrence. For empty input: the identity of min (as for `Min`) and index -1. Floating-point: in `Min`'s
  //! order, so the first NaN if there is one (its index, and the canonical quiet NaN as the value), and the first
  //! -0.0 before any +0.0.
  //!
  //! @param[out] d_min_out   where the minimum is written
  //! @param[out] d_index_out   where its index is written, as `int64_t` converted to the iterator's value type
  //!
  //! Other parameters as for `Reduce`.
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::two_output_arg_t<IndexOutIteratorT, NumItemsT>>
  static cudaError_t ArgMin(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            ExtremumOutIteratorT d_min_out,
                            IndexOutIteratorT d_index_out,
                            NumItemsT num_items,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::ArgMin");
    return ArgReduce<false>(d_temp_storage,
                            temp_storage_bytes,
                            d_in,
                            num_items,
                            stream,
                            option,
                            ArgOutputs<false, InputIteratorT>(d_min_out, d_index_out));
  }

  //! The largest item to `*d_max_out` and its index (an `int64_t`) to `*d_index_out`; on ties the first
  //! occurrence. For empty input: the identity of max (as for `Max`) and index -1. Floating-point: in `Max`'s
  //! order, so the first NaN if there is one (its index, and the canonical quiet NaN as the value), and the first
  //! +0.0 before any -0.0.
  //!
  //!
  //! @code
  //! // examples/argmax.cu [argmax]
  //! // The largest score to *d_max (an int), the index of its first occurrence to *d_index (an int64_t).
  //! size_t bytes = 0;
  //! CHECK(fold::DeviceReduce::ArgMax(nullptr, bytes, d_scores, d_max, d_index, n, stream));
  //! void* d_temp = nullptr;
  //! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  //! CHECK(fold::DeviceReduce::ArgMax(d_temp, bytes, d_scores, d_max, d_index, n, stream));
  //! @endcode
  //!
  //! Parameters as for `ArgMin`.
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::two_output_arg_t<IndexOutIteratorT, NumItemsT>>
  static cudaError_t ArgMax(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            ExtremumOutIteratorT d_max_out,
                            IndexOutIteratorT d_index_out,
                            NumItemsT num_items,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::ArgMax");
    return ArgReduce<true>(d_temp_storage,
                           temp_storage_bytes,
                           d_in,
                           num_items,
                           stream,
                           option,
                           ArgOutputs<true, InputIteratorT>(d_max_out, d_index_out));
  }

  //! The smallest item to `*d_min_out` and the largest to `*d_max_out`, in one pass over the items: `Min` and
  //! `Max` fused, with their rules (NaN, signed zeros, empty input: +infinity and -infinity for floating-point
  //! types, the largest and the lowest value for integers). Exact: the same bits on every path and architecture.
  //! cub has no MinMax; its ArgMinMax (3.6) has the same outputs in this order, with indices.
  //!
  //! @code
  //! // examples/minmax.cu [minmax]
  //! // The smallest and the largest reading, both in one pass over the data.
  //! size_t bytes = 0;
  //! CHECK(fold::DeviceReduce::MinMax(nullptr, bytes, d_readings, d_min, d_max, n, stream));
  //! void* d_temp = nullptr;
  //! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  //! CHECK(fold::DeviceReduce::MinMax(d_temp, bytes, d_readings, d_min, d_max, n, stream));
  //! @endcode
  //!
  //! @param[out] d_min_out   where the minimum is written
  //! @param[out] d_max_out   where the maximum is written
  //!
  //! Other parameters as for `Reduce`; a null `d_min_out` or `d_max_out` is `cudaErrorInvalidValue`.
  template <typename InputIteratorT,
            typename MinOutIteratorT,
            typename MaxOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::two_output_arg_t<MaxOutIteratorT, NumItemsT>>
  static cudaError_t MinMax(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            MinOutIteratorT d_min_out,
                            MaxOutIteratorT d_max_out,
                            NumItemsT num_items,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::MinMax");
    return Extremum<false, true>(
        d_temp_storage, temp_storage_bytes, d_in, num_items, stream, option, d_min_out, d_max_out);
  }

  //! `ArgMin` and `ArgMax` in one pass over the items, with cub 3.6's outputs: the smallest item to `*d_min_out`
  //! and its index to `*d_min_index_out`, the largest to `*d_max_out` and its index to `*d_max_index_out`
  //! (`int64_t` indices). The rules of `ArgMin` and `ArgMax`: on ties the first occurrence of each; the first NaN
  //! is both the minimum and the maximum (its index, the canonical quiet NaN as the value); for empty input index
  //! -1 and the identities (+infinity and -infinity for floating-point types; cub writes nothing). Exact.
  //!
  //! @param[out] d_min_out   where the minimum is written
  //! @param[out] d_min_index_out   where its index is written, as `int64_t` converted to the iterator's value type
  //! @param[out] d_max_out   where the maximum is written
  //! @param[out] d_max_index_out   where its index is written
  //!
  //! Other parameters as for `Reduce`; a null output is `cudaErrorInvalidValue`.
  template <typename InputIteratorT,
            typename MinOutIteratorT,
            typename MinIndexOutIteratorT,
            typename MaxOutIteratorT,
            typename MaxIndexOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::two_output_arg_t<MaxIndexOutIteratorT, NumItemsT>>
  static cudaError_t ArgMinMax(void* d_temp_storage,
                               std::size_t& temp_storage_bytes,
                               InputIteratorT d_in,
                               MinOutIteratorT d_min_out,
                               MinIndexOutIteratorT d_min_index_out,
                               MaxOutIteratorT d_max_out,
                               MaxIndexOutIteratorT d_max_index_out,
                               NumItemsT num_items,
                               cudaStream_t stream = 0,
                               OptionT option      = {})
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::ArgMinMax");
    return ArgReduce<false, true>(d_temp_storage,
                                  temp_storage_bytes,
                                  d_in,
                                  num_items,
                                  stream,
                                  option,
                                  ArgOutputs<false, InputIteratorT>(d_min_out, d_min_index_out),
                                  ArgOutputs<true, InputIteratorT>(d_max_out, d_max_index_out));
  }

  //! The variance and the mean of the items in one pass, like `torch.var_mean`: `sum((x - mean)^2) / (n -
  //! correction)` to `*d_var_out` and the mean to `*d_mean_out`, each converted to its output's value type.
  //!
  //! Numerically stable: blocks of items merge their counts, means and sums of squared deviations (Chan's
  //! parallel form of Welford's update) instead of summing squares. The items must be of a floating-point type;
  //! `__half` and `__nv_bfloat16` accumulate in `float`, `float` and `double` in themselves. Reproducible: the
  //! merges follow a fixed tree, so the same values give the same bits on every run, grid and path (and with
  //! `fold::gpu_to_gpu` on every architecture).
  //!
  //! - `correction` (torch's name; numpy's `ddof`): 1 (the default) gives the unbiased sample variance, 0 the
  //!   population variance. The divisor is `max(n - correction, 0)`, as in torch: for `n <= correction` the
  //!   variance is NaN when every deviation is 0 (one item, or all equal) and +infinity otherwise.
  //! - Empty input: NaN for both.
  //! - A NaN in the input makes both results NaN; an infinity makes the variance NaN, and the mean that infinity
  //!   or NaN (depending on where it meets the other items).
  //!
  //! @code
  //! // examples/minmax.cu [var-mean]
  //! // The unbiased variance (correction 1, torch's default) and the mean, in one pass; here in one call, which
  //! // allocates its temporary storage on the stream.
  //! CHECK(fold::DeviceReduce::VarMean(d_readings, d_var, d_mean, n, 1.0, stream));
  //! @endcode
  //!
  //! @param[out] d_var_out   where the variance is written
  //! @param[out] d_mean_out   where the mean is written
  //! @param[in] correction   subtracted from `n` in the divisor of the variance: finite and >= 0 (default 1). The
  //!   argument after `num_items`, so a stream comes after it: `VarMean(..., n, 1.0, stream)`.
  //!
  //! Other parameters as for `Reduce`; a `correction` that is negative, infinite or NaN is `cudaErrorInvalidValue`
  //! (size queries included), and so is a null output (a run's check, as for every algorithm).
  template <typename InputIteratorT,
            typename VarOutIteratorT,
            typename MeanOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::two_output_arg_t<MeanOutIteratorT, NumItemsT>>
  static cudaError_t VarMean(void* d_temp_storage,
                             std::size_t& temp_storage_bytes,
                             InputIteratorT d_in,
                             VarOutIteratorT d_var_out,
                             MeanOutIteratorT d_mean_out,
                             NumItemsT num_items,
                             double correction   = 1.0,
                             cudaStream_t stream = 0,
                             OptionT /*option*/  = {})
  {
    using InputT = detail::value_t<InputIteratorT>;
    static_assert(is_floating_v<InputT>,
                  "fold::DeviceReduce::VarMean: the items must be of a floating-point type (float, double, __half, "
                  "__nv_bfloat16); convert others with TransformReduce's transform or a transform iterator");
    using AccumT = detail::Moments<detail::moments_accum_t<InputT>>;
    if (!(correction >= 0.0 && correction <= DBL_MAX))
    {
      return cudaErrorInvalidValue; // also NaN
    }
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::VarMean");
    return detail::reduce<AccumT, detail::tuning_t<OptionT>>(
        d_temp_storage,
        temp_storage_bytes,
        d_in,
        detail::VarMeanOutput<VarOutIteratorT, MeanOutIteratorT>{d_var_out, d_mean_out, correction},
        num_items,
        detail::MergeMoments{},
        detail::EmptyResult<AccumT>{AccumT{}},
        detail::ToMoments<detail::moments_accum_t<InputT>>{},
        stream);
  }

  //! The single-output ArgMin of CUB 3.0.1, deprecated there as here: the smallest item and its index, written
  //! together to `*d_out` as a `KeyValuePair<int, T>` (`key` the index, `value` the item; any pair with an integer
  //! `key` will do). Selection as for the two-output `ArgMin`; for empty input fold writes index -1 and the
  //! identity of min (CUB writes index 1 and `numeric_limits<T>::max()`). No trailing option.
  template <typename InputIteratorT, typename OutputIteratorT>
  [[deprecated("fold::DeviceReduce::ArgMin: use the form with two outputs, d_min_out and d_index_out (as CUB "
               "does)")]] static cudaError_t
  ArgMin(void* d_temp_storage,
         std::size_t& temp_storage_bytes,
         InputIteratorT d_in,
         OutputIteratorT d_out,
         int num_items,
         cudaStream_t stream = 0)
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::ArgMin");
    return ArgPair<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
  }

  //! The single-output ArgMax of CUB 3.0.1, deprecated there as here. As the single-output `ArgMin`, for the
  //! largest item; for empty input index -1 and the identity of max (CUB: index 1 and `numeric_limits<T>::lowest()`).
  template <typename InputIteratorT, typename OutputIteratorT>
  [[deprecated("fold::DeviceReduce::ArgMax: use the form with two outputs, d_max_out and d_index_out (as CUB "
               "does)")]] static cudaError_t
  ArgMax(void* d_temp_storage,
         std::size_t& temp_storage_bytes,
         InputIteratorT d_in,
         OutputIteratorT d_out,
         int num_items,
         cudaStream_t stream = 0)
  {
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::ArgMax");
    return ArgPair<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
  }

  //! `init op f(x[0]) op f(x[1]) op ... op f(x[num_items - 1])`, written to `*d_out` (`init` when `num_items`
  //! is 0), with `f = transform_op` applied to each item as it is loaded (no intermediate array).
  //!
  //! The accumulator is `decltype(reduction_op(init, transform_op(*d_in)))`.
  //!
  //! @param[in] transform_op   the unary transform, a `__host__ __device__` (or `__device__`) callable
  //!
  //! Other parameters as for `Reduce`.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename TransformOpT,
            typename T,
            typename NumItemsT,
            typename OptionT = run_to_run_t>
  static cudaError_t TransformReduce(void* d_temp_storage,
                                     std::size_t& temp_storage_bytes,
                                     InputIteratorT d_in,
                                     OutputIteratorT d_out,
                                     NumItemsT num_items,
                                     ReductionOpT reduction_op,
                                     TransformOpT transform_op,
                                     T init,
                                     cudaStream_t stream = 0,
                                     OptionT /*option*/  = {})
  {
    using InputT = detail::value_t<InputIteratorT>;
    static_assert(std::is_invocable_v<TransformOpT, const InputT&>,
                  "fold::DeviceReduce::TransformReduce: transform_op must be callable as transform_op(*d_in)");
    using ItemT = std::decay_t<std::invoke_result_t<TransformOpT, const InputT&>>;
    static_assert(std::is_invocable_v<ReductionOpT, const T&, const ItemT&>,
                  "fold::DeviceReduce::TransformReduce: reduction_op must be callable as "
                  "reduction_op(init, transform_op(*d_in))");
    using AccumT = detail::accumulator_t<ReductionOpT, T, ItemT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::TransformReduce");
    return detail::reduce<AccumT, detail::tuning_t<OptionT>>(d_temp_storage,
                                                             temp_storage_bytes,
                                                             d_in,
                                                             d_out,
                                                             num_items,
                                                             reduction_op,
                                                             detail::InitialValue<T>{init},
                                                             detail::ApplyTransform<AccumT, TransformOpT>{transform_op},
                                                             stream);
  }

  //! Reduce-by-key: for each run of consecutive equal keys in `d_keys_in[0, num_items)`, its key to
  //! `d_unique_out[r]` and the reduction of its values to `d_aggregates_out[r]`, `r` counting runs from 0; the
  //! number of runs to `*d_num_runs_out` (0 for empty input, where nothing else is written). As CUB's
  //! `DeviceReduce::ReduceByKey`, with these guarantees beyond it:
  //! - Reproducible: the same keys and values give the same bits on every run, whatever the timing of the tiles
  //!   (CUB's floating-point sums vary from run to run, NVIDIA/cccl issue 9995). The tile shape is the same on
  //!   every architecture, so the bits are the same on every GPU too (`gpu_to_gpu` is accepted and changes
  //!   nothing).
  //! - Order-preserving: a run's aggregate is `v[i] op v[i + 1] op ... op v[j]` in index order, with some
  //!   grouping, whether or not `reduction_op` is commutative.
  //!
  //! @code
  //! // examples/reduce_by_key.cu [reduce-by-key]
  //! // Keys  1 1 2 2 2 1 ... : runs of equal keys, each summed; a key may come back in a later run.
  //! size_t bytes = 0;
  //! CHECK(fold::DeviceReduce::ReduceByKey(
  //!     nullptr, bytes, d_keys, d_unique, d_values, d_sums, d_num_runs, fold::Sum{}, n, stream));
  //! void* d_temp = nullptr;
  //! CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  //! CHECK(fold::DeviceReduce::ReduceByKey(
  //!     d_temp, bytes, d_keys, d_unique, d_values, d_sums, d_num_runs, fold::Sum{}, n, stream));
  //! @endcode
  //!
  //! The accumulator is `decltype(reduction_op(*d_values_in, *d_values_in))` (as in CUB); it and the key type
  //! must be trivially copyable. The outputs must have room for as many runs as there may be (`num_items` at
  //! most). Keys are compared with `equality_op(previous, key)` (default `==`).
  //!
  //! @param[in] d_keys_in   the keys
  //! @param[out] d_unique_out   the first key of each run
  //! @param[in] d_values_in   the values, one per key
  //! @param[out] d_aggregates_out   the reduction of each run's values
  //! @param[out] d_num_runs_out   the number of runs
  //! @param[in] reduction_op   the binary operator, associative
  //! @param[in] num_items   the number of keys and values (>= 0)
  //! @param[in] stream   the stream to run on (default: the default stream)
  //! @param[in] option   `fold::run_to_run` (default), `fold::gpu_to_gpu` (the same) or `fold::tuned<T>` (its hooks)
  //!
  //! Return values as for `Reduce`; also `cudaErrorInvalidValue` for a null output (or input, with
  //! `num_items > 0`).
  template <typename KeysInputIteratorT,
            typename UniqueOutputIteratorT,
            typename ValuesInputIteratorT,
            typename AggregatesOutputIteratorT,
            typename NumRunsOutputIteratorT,
            typename ReductionOpT,
            typename NumItemsT,
            typename OptionT = run_to_run_t>
  static cudaError_t ReduceByKey(void* d_temp_storage,
                                 std::size_t& temp_storage_bytes,
                                 KeysInputIteratorT d_keys_in,
                                 UniqueOutputIteratorT d_unique_out,
                                 ValuesInputIteratorT d_values_in,
                                 AggregatesOutputIteratorT d_aggregates_out,
                                 NumRunsOutputIteratorT d_num_runs_out,
                                 ReductionOpT reduction_op,
                                 NumItemsT num_items,
                                 cudaStream_t stream = 0,
                                 OptionT option      = {})
  {
    return ReduceByKey(d_temp_storage,
                       temp_storage_bytes,
                       d_keys_in,
                       d_unique_out,
                       d_values_in,
                       d_aggregates_out,
                       d_num_runs_out,
                       reduction_op,
                       num_items,
                       ::cuda::std::equal_to<>{},
                       stream,
                       option);
  }

  //! `ReduceByKey` with keys compared by `equality_op(previous, key)`: runs of keys it calls equal.
  template <typename KeysInputIteratorT,
            typename UniqueOutputIteratorT,
            typename ValuesInputIteratorT,
            typename AggregatesOutputIteratorT,
            typename NumRunsOutputIteratorT,
            typename ReductionOpT,
            typename NumItemsT,
            typename EqualityOpT,
            typename OptionT = run_to_run_t,
            typename         = detail::equality_op_t<EqualityOpT, KeysInputIteratorT>>
  static cudaError_t ReduceByKey(void* d_temp_storage,
                                 std::size_t& temp_storage_bytes,
                                 KeysInputIteratorT d_keys_in,
                                 UniqueOutputIteratorT d_unique_out,
                                 ValuesInputIteratorT d_values_in,
                                 AggregatesOutputIteratorT d_aggregates_out,
                                 NumRunsOutputIteratorT d_num_runs_out,
                                 ReductionOpT reduction_op,
                                 NumItemsT num_items,
                                 EqualityOpT equality_op,
                                 cudaStream_t stream = 0,
                                 OptionT /*option*/  = {})
  {
    using ValueT = detail::value_t<ValuesInputIteratorT>;
    static_assert(std::is_invocable_v<ReductionOpT, const ValueT&, const ValueT&>,
                  "fold::DeviceReduce::ReduceByKey: reduction_op must be callable as reduction_op(value, value)");
    using AccumT = detail::accumulator_t<ReductionOpT, ValueT, ValueT>;
    FOLD_NVTX_RANGE_IF(detail::is_run(d_temp_storage), "fold::DeviceReduce::ReduceByKey");
    return detail::reduce_by_key<detail::tuning_t<OptionT>, AccumT>(d_temp_storage,
                                                                    temp_storage_bytes,
                                                                    d_keys_in,
                                                                    d_unique_out,
                                                                    d_values_in,
                                                                    d_aggregates_out,
                                                                    d_num_runs_out,
                                                                    equality_op,
                                                                    reduction_op,
                                                                    num_items,
                                                                    stream);
  }

  //! @name One call
  //! Each algorithm above without the size query: `fold::DeviceReduce::Sum(d_in, d_out, n, stream)`. The
  //! temporary storage is allocated and freed on `stream` (`cudaMallocAsync`/`cudaFreeAsync`, from the device's
  //! current pool, or `cudaMallocFromPoolAsync` with a trailing `fold::from_pool(pool)` or
  //! `fold::from_pool(pool, option)`), so the call stays stream-ordered and can be captured into a CUDA graph.
  //! When the pool cannot serve, the call returns `cudaErrorMemoryAllocation` and nothing is launched or written.
  //! Bad arguments are reported as by the two-call form. The two-call form is the one that never allocates.
  //!
  //! @code
  //! // examples/one_call.cu [one-call]
  //! // No size query: the temporary storage is allocated and freed on `stream`, in stream order.
  //! CHECK(fold::DeviceReduce::Sum(d_in, d_out, n, stream));
  //! @endcode
  //! @{

  //! `Reduce` in one call.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename T,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t Reduce(InputIteratorT d_in,
                            OutputIteratorT d_out,
                            NumItemsT num_items,
                            ReductionOpT reduction_op,
                            T init,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
          return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, reduction_op, init, stream, option);
        });
  }

  //! `Sum` in one call.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t
  Sum(InputIteratorT d_in, OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0, OptionT option = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
                              return Sum(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream, option);
                            });
  }

  //! `Min` in one call.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t
  Min(InputIteratorT d_in, OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0, OptionT option = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
                              return Min(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream, option);
                            });
  }

  //! `Max` in one call.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t
  Max(InputIteratorT d_in, OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0, OptionT option = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
                              return Max(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream, option);
                            });
  }

  //! `ArgMin` (two outputs) in one call.
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t ArgMin(InputIteratorT d_in,
                            ExtremumOutIteratorT d_min_out,
                            IndexOutIteratorT d_index_out,
                            NumItemsT num_items,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
          return ArgMin(d_temp_storage, temp_storage_bytes, d_in, d_min_out, d_index_out, num_items, stream, option);
        });
  }

  //! `ArgMax` (two outputs) in one call.
  template <typename InputIteratorT,
            typename ExtremumOutIteratorT,
            typename IndexOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t ArgMax(InputIteratorT d_in,
                            ExtremumOutIteratorT d_max_out,
                            IndexOutIteratorT d_index_out,
                            NumItemsT num_items,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes) {
          return ArgMax(d_temp_storage, temp_storage_bytes, d_in, d_max_out, d_index_out, num_items, stream, option);
        });
  }

  //! `MinMax` in one call.
  template <typename InputIteratorT,
            typename MinOutIteratorT,
            typename MaxOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t MinMax(InputIteratorT d_in,
                            MinOutIteratorT d_min_out,
                            MaxOutIteratorT d_max_out,
                            NumItemsT num_items,
                            cudaStream_t stream = 0,
                            OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
        { return MinMax(d_temp_storage, temp_storage_bytes, d_in, d_min_out, d_max_out, num_items, stream, option); });
  }

  //! `ArgMinMax` in one call.
  template <typename InputIteratorT,
            typename MinOutIteratorT,
            typename MinIndexOutIteratorT,
            typename MaxOutIteratorT,
            typename MaxIndexOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t ArgMinMax(InputIteratorT d_in,
                               MinOutIteratorT d_min_out,
                               MinIndexOutIteratorT d_min_index_out,
                               MaxOutIteratorT d_max_out,
                               MaxIndexOutIteratorT d_max_index_out,
                               NumItemsT num_items,
                               cudaStream_t stream = 0,
                               OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return ArgMinMax(d_temp_storage,
                                               temp_storage_bytes,
                                               d_in,
                                               d_min_out,
                                               d_min_index_out,
                                               d_max_out,
                                               d_max_index_out,
                                               num_items,
                                               stream,
                                               option);
                            });
  }

  //! `VarMean` in one call.
  template <typename InputIteratorT,
            typename VarOutIteratorT,
            typename MeanOutIteratorT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t VarMean(InputIteratorT d_in,
                             VarOutIteratorT d_var_out,
                             MeanOutIteratorT d_mean_out,
                             NumItemsT num_items,
                             double correction   = 1.0,
                             cudaStream_t stream = 0,
                             OptionT option      = {})
  {
    return detail::one_call(
        stream,
        option,
        [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
        {
          return VarMean(
              d_temp_storage, temp_storage_bytes, d_in, d_var_out, d_mean_out, num_items, correction, stream, option);
        });
  }

  //! `TransformReduce` in one call.
  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename TransformOpT,
            typename T,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t TransformReduce(InputIteratorT d_in,
                                     OutputIteratorT d_out,
                                     NumItemsT num_items,
                                     ReductionOpT reduction_op,
                                     TransformOpT transform_op,
                                     T init,
                                     cudaStream_t stream = 0,
                                     OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return TransformReduce(d_temp_storage,
                                                     temp_storage_bytes,
                                                     d_in,
                                                     d_out,
                                                     num_items,
                                                     reduction_op,
                                                     transform_op,
                                                     init,
                                                     stream,
                                                     option);
                            });
  }
  //! `ReduceByKey` in one call.
  template <typename KeysInputIteratorT,
            typename UniqueOutputIteratorT,
            typename ValuesInputIteratorT,
            typename AggregatesOutputIteratorT,
            typename NumRunsOutputIteratorT,
            typename ReductionOpT,
            typename NumItemsT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>>
  static cudaError_t ReduceByKey(KeysInputIteratorT d_keys_in,
                                 UniqueOutputIteratorT d_unique_out,
                                 ValuesInputIteratorT d_values_in,
                                 AggregatesOutputIteratorT d_aggregates_out,
                                 NumRunsOutputIteratorT d_num_runs_out,
                                 ReductionOpT reduction_op,
                                 NumItemsT num_items,
                                 cudaStream_t stream = 0,
                                 OptionT option      = {})
  {
    return ReduceByKey(d_keys_in,
                       d_unique_out,
                       d_values_in,
                       d_aggregates_out,
                       d_num_runs_out,
                       reduction_op,
                       num_items,
                       ::cuda::std::equal_to<>{},
                       stream,
                       option);
  }

  //! `ReduceByKey` with an equality operator, in one call.
  template <typename KeysInputIteratorT,
            typename UniqueOutputIteratorT,
            typename ValuesInputIteratorT,
            typename AggregatesOutputIteratorT,
            typename NumRunsOutputIteratorT,
            typename ReductionOpT,
            typename NumItemsT,
            typename EqualityOpT,
            typename OptionT = run_to_run_t,
            typename         = detail::one_call_count_t<NumItemsT>,
            typename         = detail::equality_op_t<EqualityOpT, KeysInputIteratorT>>
  static cudaError_t ReduceByKey(KeysInputIteratorT d_keys_in,
                                 UniqueOutputIteratorT d_unique_out,
                                 ValuesInputIteratorT d_values_in,
                                 AggregatesOutputIteratorT d_aggregates_out,
                                 NumRunsOutputIteratorT d_num_runs_out,
                                 ReductionOpT reduction_op,
                                 NumItemsT num_items,
                                 EqualityOpT equality_op,
                                 cudaStream_t stream = 0,
                                 OptionT option      = {})
  {
    return detail::one_call(stream,
                            option,
                            [&](void* d_temp_storage, std::size_t& temp_storage_bytes)
                            {
                              return ReduceByKey(d_temp_storage,
                                                 temp_storage_bytes,
                                                 d_keys_in,
                                                 d_unique_out,
                                                 d_values_in,
                                                 d_aggregates_out,
                                                 d_num_runs_out,
                                                 reduction_op,
                                                 num_items,
                                                 equality_op,
                                                 stream,
                                                 option);
                            });
  }
  //! @}

private:
  // Min, Max and MinMax (`ForMax...`: one flag per extreme, fused as `detail::Fused` for two): fold's operator and
  // its identity, over the values as `ExtremumValues` carries them (order keys for floating-point input, turned
  // back into a value when written); `out...`, one output per flag.
  template <bool... ForMax, typename InputIteratorT, typename NumItemsT, typename OptionT, typename... OutputIteratorT>
  static cudaError_t Extremum(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT d_in,
                              NumItemsT num_items,
                              cudaStream_t stream,
                              OptionT,
                              OutputIteratorT... out)
  {
    using InputT = detail::value_t<InputIteratorT>;
    using AccumT = detail::fused_t<typename detail::ExtremumReduction<InputT, ForMax>::AccumT...>;
    return detail::reduce<AccumT, detail::tuning_t<OptionT>>(
        d_temp_storage,
        temp_storage_bytes,
        d_in,
        detail::fuse(detail::extremum_output<InputT, ForMax>(out)...),
        num_items,
        detail::fuse(typename detail::ExtremumReduction<InputT, ForMax>::Op{}...),
        detail::InitialValue<AccumT>{detail::fuse(detail::ExtremumReduction<InputT, ForMax>::identity()...)},
        detail::fuse(typename detail::ExtremumReduction<InputT, ForMax>::ToValue{}...),
        stream);
  }

  // Where ArgMin, ArgMax and ArgMinMax write one extreme over input `InputIteratorT`: its value to `d_extremum_out`
  // (through `extremum_output`), its index to `d_index_out`.
  template <bool ForMax, typename InputIteratorT, typename ExtremumOutIteratorT, typename IndexOutIteratorT>
  static auto ArgOutputs(ExtremumOutIteratorT d_extremum_out, IndexOutIteratorT d_index_out)
  {
    const auto values = detail::extremum_output<detail::value_t<InputIteratorT>, ForMax>(d_extremum_out);
    return detail::ArgOutput<decltype(values), IndexOutIteratorT>{values, d_index_out};
  }

  // The single-output ArgMin and ArgMax: one KeyValuePair<integer, T> result.
  template <bool ForMax, typename InputIteratorT, typename OutputIteratorT>
  static cudaError_t ArgPair(void* d_temp_storage,
                             std::size_t& temp_storage_bytes,
                             InputIteratorT d_in,
                             OutputIteratorT d_out,
                             int num_items,
                             cudaStream_t stream)
  {
    using InputT = detail::value_t<InputIteratorT>;
    using PairT  = detail::non_void_value_t<OutputIteratorT, KeyValuePair<int, InputT>>;
    static_assert(std::is_integral_v<decltype(PairT::key)>,
                  "fold::DeviceReduce: the output of the single-output ArgMin/ArgMax holds KeyValuePair<integer, T>");
    return ArgReduce<ForMax>(d_temp_storage,
                             temp_storage_bytes,
                             d_in,
                             num_items,
                             stream,
                             run_to_run,
                             detail::PairOutput<OutputIteratorT, InputT, ForMax>{d_out});
  }

  // The reduction behind ArgExtremum and the single-output ArgMin/ArgMax: (index, value) pairs, no initial value,
  // identity and -1 for empty input; its result, one (index, value) pair per flag of `ForMax...`, goes to `out...`,
  // output adapters (`ArgOutput`, `PairOutput`). Inputs of up to 2^32 items of primitive types reduce as packed
  // pairs (`PackedArgReduction`); longer ones, and values of other types, as (int64 index, value) pairs.
  template <bool... ForMax, typename InputIteratorT, typename NumItemsT, typename OptionT, typename... ArgOutputT>
  static cudaError_t ArgReduce(void* d_temp_storage,
                               std::size_t& temp_storage_bytes,
                               InputIteratorT d_in,
                               NumItemsT num_items,
                               cudaStream_t stream,
                               OptionT option,
                               ArgOutputT... out)
  {
    using InputT          = detail::value_t<InputIteratorT>;
    constexpr bool packed = (detail::PackedArgReduction<InputT, ForMax>::applies && ...);
    if constexpr (packed && sizeof(NumItemsT) <= 4)
    {
      // A 32-bit count always fits the packed pairs: the (int64 index, value) kernels are not even instantiated.
      return PackedArgReduce<ForMax...>(d_temp_storage, temp_storage_bytes, d_in, num_items, stream, option, out...);
    }
    else
    {
      if constexpr (packed)
      {
        if (num_items <= static_cast<NumItemsT>(detail::PackedArgReduction<InputT, true>::max_items))
        {
          return PackedArgReduce<ForMax...>(
              d_temp_storage, temp_storage_bytes, d_in, num_items, stream, option, out...);
        }
      }
      using PairT = detail::fused_t<typename detail::ExtremumReduction<InputT, ForMax>::PairT...>;
      return detail::reduce<PairT, detail::tuning_t<OptionT>>(
          d_temp_storage,
          temp_storage_bytes,
          d_in,
          detail::fuse(out...),
          num_items,
          detail::fuse(typename detail::ExtremumReduction<InputT, ForMax>::ArgOp{}...),
          detail::EmptyResult<PairT>{detail::fuse(detail::ExtremumReduction<InputT, ForMax>::empty_pair()...)},
          detail::fuse(typename detail::ExtremumReduction<InputT, ForMax>::ToPair{}...),
          stream);
    }
  }

  // ArgReduce over packed pairs: instantiated only for values that pack. Rejects a negative count.
  template <bool... ForMax, typename InputIteratorT, typename NumItemsT, typename OptionT, typename... ArgOutputT>
  static cudaError_t PackedArgReduce(void* d_temp_storage,
                                     std::size_t& temp_storage_bytes,
                                     InputIteratorT d_in,
                                     NumItemsT num_items,
                                     cudaStream_t stream,
                                     OptionT,
                                     ArgOutputT... out)
  {
    using InputT  = detail::value_t<InputIteratorT>;
    using PackedT = detail::fused_t<typename detail::PackedArgReduction<InputT, ForMax>::PackedPair...>;
    using PairT   = detail::fused_t<typename detail::ExtremumReduction<InputT, ForMax>::PairT...>;
    return detail::reduce<PackedT, detail::tuning_t<OptionT>>(
        d_temp_storage,
        temp_storage_bytes,
        d_in,
        detail::unpack_outputs<detail::PackedArgReduction<InputT, ForMax>...>(out...),
        num_items,
        detail::fuse(typename detail::PackedArgReduction<InputT, ForMax>::Op{}...),
        detail::EmptyResult<PairT>{detail::fuse(detail::ExtremumReduction<InputT, ForMax>::empty_pair()...)},
        detail::fuse(typename detail::PackedArgReduction<InputT, ForMax>::Pack{}...),
        stream);
  }
};

FOLD_NAMESPACE_END
