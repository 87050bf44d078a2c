// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction kernels. Each selects its tile shape with `FOLD_ARCH` (the `__CUDA_ARCH__` of the pass that
//! compiles it) through the same selector the host dispatch uses with the PTX version of the loaded image.
//!
//! - `SingleTileKernel`: one block reduces all `num_items` items and writes `init`-combined result; launched
//!   alone when the input fits in one tile, and as pass 2 over the partials of `ReduceKernel`.
//! - `ReduceKernel` (pass 1): block `b` reduces the contiguous tile range GridEvenShare gives it and writes its
//!   partial to `partials[b]`.
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

} // namespace fold::detail
