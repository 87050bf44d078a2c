// SPDX-License-Identifier: Apache-2.0
//! @file
//! Qualifier macros, the kernel attributes, the namespaces (see <fold/version.h>) and the architecture the current
//! compilation pass targets.
#pragma once

#include <fold/version.h>

#define FOLD_HOST_DEVICE __host__ __device__
#define FOLD_DEVICE __device__
#define FOLD_FORCEINLINE __forceinline__

//! What every fold kernel is declared with: `__global__`, and hidden from other shared objects, so that a kernel
//! is only ever launched by the translation units (and the library) that compiled it. A kernel instantiated with a
//! type of internal linkage (one from an unnamed namespace) has internal linkage itself, where the attribute has
//! nothing to hide: the headers that define kernels silence nvcc's warning about that (1407) between
//! `FOLD_KERNELS_BEGIN` and `FOLD_KERNELS_END`. (A `_Pragma` in `FOLD_KERNEL` itself made nvcc's front end many
//! times slower on translation units with many instantiations.)
#if defined(_WIN32)
#define FOLD_KERNEL __global__
#else
#define FOLD_KERNEL __global__ __attribute__((visibility("hidden")))
#endif
#define FOLD_KERNELS_BEGIN _Pragma("nv_diagnostic push") _Pragma("nv_diag_suppress 1407")
#define FOLD_KERNELS_END _Pragma("nv_diagnostic pop")

//! The architecture of the current device compilation pass, as `__CUDA_ARCH__` spells it (900 for sm_90),
//! or 0 in the host pass. Kernels select their policy with it; the host selects with the PTX version of the
//! image the driver loaded. Both go through the same `policy(arch)` of the call's tuning, so they agree by
//! construction.
#if defined(__CUDA_ARCH__)
#define FOLD_ARCH __CUDA_ARCH__
#else
#define FOLD_ARCH 0
#endif
