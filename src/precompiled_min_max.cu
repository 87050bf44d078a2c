// SPDX-License-Identifier: Apache-2.0
#include "precompiled_instantiate.cuh"

#define FOLD_INSTANTIATE_MIN_MAX(T)                                                                                    \
  template cudaError_t fold::precompiled::DeviceReduce::Min<T>(                                                        \
      void*, std::size_t&, const T*, T*, std::int64_t, cudaStream_t);                                                  \
  template cudaError_t fold::precompiled::DeviceReduce::Max<T>(                                                        \
      void*, std::size_t&, const T*, T*, std::int64_t, cudaStream_t);

FOLD_INSTANTIATE_FOR_TYPES(FOLD_INSTANTIATE_MIN_MAX)
