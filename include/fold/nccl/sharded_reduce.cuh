// SPDX-License-Identifier: Apache-2.0
//! @file
//! `detail::ShardedReduce<ExchangeT>`: the algorithms of `fold::nccl::DeviceReduce` over any exchange (see
//! dispatch/dispatch_reduce_distributed.cuh): NCCL's (device/device_reduce_nccl.cuh), or the tests' virtual ranks
//! on one GPU. Each algorithm is the same four choices as `fold::DeviceReduce`'s (operator, initial value, item
//! transform, output), so a shard's items are reduced exactly as the single-GPU call would reduce them.
#pragma once

#include <fold/detail/extremum.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/dispatch/dispatch_reduce_distributed.cuh>
#include <fold/nccl/shards.cuh>
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

template <typename ExchangeT>
struct ShardedReduce
{
  template <typename InputIteratorT, typename OutputIteratorT, typename ReductionOpT, typename T, typename OptionT>
  static cudaError_t Reduce(void* d_temp_storage,
                            std::size_t& temp_storage_bytes,
                            InputIteratorT d_in,
                            OutputIteratorT d_out,
                            const nccl::Shards& shards,
                            int root,
                            ReductionOpT reduction_op,
                            T init,
                            ExchangeT& exchange,
                            cudaStream_t stream,
                            OptionT)
  {
    using InputT = value_t<InputIteratorT>;
    static_assert(std::is_invocable_v<ReductionOpT, const T&, const InputT&>,
                  "fold::nccl::DeviceReduce::Reduce: reduction_op must be callable as reduction_op(init, *d_in)");
    using AccumT = accumulator_t<ReductionOpT, T, InputT>;
    FOLD_NVTX_RANGE_IF(d_temp_storage != nullptr, "fold::nccl::DeviceReduce::Reduce");
    return sharded_reduce<AccumT, tuning_t<OptionT>>(d_temp_storage,
                                                     temp_storage_bytes,
                                                     d_in,
                                                     d_out,
                                                     shards,
                                                     root,
                                                     reduction_op,
                                                     InitialValue<T>{init},
                                                     CastTo<AccumT>{},
                                                     exchange,
                                                     stream);
  }

  template <typename InputIteratorT, typename OutputIteratorT, typename OptionT>
  static cudaError_t Sum(void* d_temp_storage,
                         std::size_t& temp_storage_bytes,
                         InputIteratorT d_in,
                         OutputIteratorT d_out,
                         const nccl::Shards& shards,
                         int root,
                         ExchangeT& exchange,
                         cudaStream_t stream,
                         OptionT)
  {
    using InputT  = value_t<InputIteratorT>;
    using OutputT = non_void_value_t<OutputIteratorT, InputT>;
    using InitT   = sum_init_t<OutputT>;
    using AccumT  = accumulator_t<fold::Sum, InitT, InputT>;
    FOLD_NVTX_RANGE_IF(d_temp_storage != nullptr, "fold::nccl::DeviceReduce::Sum");
    return sharded_reduce<AccumT, tuning_t<OptionT>>(d_temp_storage,
                                                     temp_storage_bytes,
                                                     d_in,
                                                     d_out,
                                                     shards,
                                                     root,
                                                     fold::Sum{},
                                                     InitialValue<InitT>{InitT{}},
                                                     CastTo<AccumT>{},
                                                     exchange,
                                                     stream);
  }

  //! Min (`ForMax` false) and Max, as `DeviceReduce` runs them.
  template <bool ForMax, typename InputIteratorT, typename OutputIteratorT, typename OptionT>
  static cudaError_t Extremum(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT d_in,
                              OutputIteratorT d_out,
                              const nccl::Shards& shards,
                              int root,
                              ExchangeT& exchange,
                              cudaStream_t stream,
                              OptionT)
  {
    using InputT     = value_t<InputIteratorT>;
    using ReductionT = ExtremumReduction<InputT, ForMax>;
    using AccumT     = typename ReductionT::AccumT;
    FOLD_NVTX_RANGE_IF(d_temp_storage != nullptr,
                       ForMax ? "fold::nccl::DeviceReduce::Max" : "fold::nccl::DeviceReduce::Min");
    return sharded_reduce<AccumT, tuning_t<OptionT>>(d_temp_storage,
                                                     temp_storage_bytes,
                                                     d_in,
                                                     extremum_output<InputT, ForMax>(d_out),
                                                     shards,
                                                     root,
                                                     typename ReductionT::Op{},
                                                     InitialValue<AccumT>{ReductionT::identity()},
                                                     typename ReductionT::ToValue{},
                                                     exchange,
                                                     stream);
  }

  //! ArgMin (`ForMax` false) and ArgMax, as `DeviceReduce` runs them, with global indices: each item is paired with
  //! its index in the whole array. Packed pairs while the whole array has at most 2^32 items.
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
                                 const nccl::Shards& shards,
                                 int root,
                                 ExchangeT& exchange,
                                 cudaStream_t stream,
                                 OptionT)
  {
    using InputT     = value_t<InputIteratorT>;
    using ReductionT = ExtremumReduction<InputT, ForMax>;
    using PairT      = typename ReductionT::PairT;
    using TuningT    = tuning_t<OptionT>;
    using PackedT    = PackedArgReduction<InputT, ForMax>;
    FOLD_NVTX_RANGE_IF(d_temp_storage != nullptr,
                       ForMax ? "fold::nccl::DeviceReduce::ArgMax" : "fold::nccl::DeviceReduce::ArgMin");
    const auto values = extremum_output<InputT, ForMax>(d_extremum_out);
    const ArgOutput<decltype(values), IndexOutIteratorT> out{values, d_index_out};
    const EmptyResult<PairT> empty{ReductionT::empty_pair()};
    const int rank = exchange.rank();
    const std::uint64_t offset =
        shards.valid() && rank >= 0 && rank < shards.ranks() ? static_cast<std::uint64_t>(shards.offset(rank)) : 0;
    if constexpr (PackedT::applies)
    {
      if (static_cast<std::uint64_t>(shards.total()) <= PackedT::max_items)
      {
        using PackT = ShiftIndex<typename PackedT::Pack>;
        return sharded_reduce<typename PackedT::PackedPair, TuningT>(d_temp_storage,
                                                                     temp_storage_bytes,
                                                                     d_in,
                                                                     UnpackArg<decltype(out), PackedT>{out},
                                                                     shards,
                                                                     root,
                                                                     typename PackedT::Op{},
                                                                     empty,
                                                                     PackT{{}, offset},
                                                                     exchange,
                                                                     stream);
      }
    }
    using ToPairT = ShiftIndex<typename ReductionT::ToPair>;
    return sharded_reduce<PairT, TuningT>(d_temp_storage,
                                          temp_storage_bytes,
                                          d_in,
                                          out,
                                          shards,
                                          root,
                                          typename ReductionT::ArgOp{},
                                          empty,
                                          ToPairT{{}, offset},
                                          exchange,
                                          stream);
  }

  template <typename InputIteratorT,
            typename OutputIteratorT,
            typename ReductionOpT,
            typename TransformOpT,
            typename T,
            typename OptionT>
  static cudaError_t TransformReduce(void* d_temp_storage,
                                     std::size_t& temp_storage_bytes,
                                     InputIteratorT d_in,
                                     OutputIteratorT d_out,
                                     const nccl::Shards& shards,
                                     int root,
                                     ReductionOpT reduction_op,
                                     TransformOpT transform_op,
                                     T init,
                                     ExchangeT& exchange,
                                     cudaStream_t stream,
                                     OptionT)
  {
    using InputT = value_t<InputIteratorT>;
    static_assert(std::is_invocable_v<TransformOpT, const InputT&>,
                  "fold::nccl::DeviceReduce::TransformReduce: transform_op must be callable as transform_op(*d_in)");
    using ItemT = std::decay_t<std::invoke_result_t<TransformOpT, const InputT&>>;
    static_assert(std::is_invocable_v<ReductionOpT, const T&, const ItemT&>,
                  "fold::nccl::DeviceReduce::TransformReduce: reduction_op must be callable as "
                  "reduction_op(init, transform_op(*d_in))");
    using AccumT = accumulator_t<ReductionOpT, T, ItemT>;
    FOLD_NVTX_RANGE_IF(d_temp_storage != nullptr, "fold::nccl::DeviceReduce::TransformReduce");
    return sharded_reduce<AccumT, tuning_t<OptionT>>(d_temp_storage,
                                                     temp_storage_bytes,
                                                     d_in,
                                                     d_out,
                                                     shards,
                                                     root,
                                                     reduction_op,
                                                     InitialValue<T>{init},
                                                     ApplyTransform<AccumT, TransformOpT>{transform_op},
                                                     exchange,
                                                     stream);
  }
};

//! The granule of a reduction by `ReductionOpT` of input `InputIteratorT` into accumulators of `AccumT` under
//! `TuningT`, for `total_items` items on the current device: 1 for an exact reduction (any split gives the same
//! bits), otherwise the unit of the single-GPU plan (`sharded_unit_items`).
template <typename InputIteratorT, typename ReductionOpT, typename AccumT, typename TuningT>
cudaError_t sharded_granule(std::int64_t total_items, std::int64_t& granule)
{
  if (total_items < 0)
  {
    return cudaErrorInvalidValue;
  }
  if constexpr (is_exact_v<ReductionOpT, AccumT>)
  {
    granule = 1;
    return cudaSuccess;
  }
  else
  {
    DeviceFacts facts;
    if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
    {
      return error;
    }
    const TileShape shape = reduce_tile_shape<InputIteratorT, AccumT, TuningT, ReductionOpT>(facts.arch);
    const auto tiles      = tiles_of(static_cast<std::uint64_t>(total_items), shape.tile_items);
    granule =
        sharded_unit_items(total_items, shape, max_units_of<ReductionOpT, AccumT>(TuningT::policy(facts.arch), tiles));
    return cudaSuccess;
  }
}

} // namespace detail
FOLD_NAMESPACE_END
