// SPDX-License-Identifier: Apache-2.0
//! @file
//! Qualifier macros and the architecture the current compilation pass targets.
#pragma once

#define FOLD_HOST_DEVICE __host__ __device__
#define FOLD_DEVICE __device__
#define FOLD_FORCEINLINE __forceinline__

//! The architecture of the current device compilation pass, as `__CUDA_ARCH__` spells it (900 for sm_90),
//! or 0 in the host pass. Kernels select their policy with it; the host selects with the PTX version of the
//! image the driver loaded. Both go through `fold::select_reduce_policy`, so they agree by construction.
#if defined(__CUDA_ARCH__)
#define FOLD_ARCH __CUDA_ARCH__
#else
#define FOLD_ARCH 0
#endif
