// SPDX-License-Identifier: Apache-2.0
//! @file
//! fold's version, and the namespaces its symbols live in. Plain C++: `<fold/precompiled.h>` includes it.
//!
//! Every name of fold is declared in `fold` and lives in an inline namespace below it, so that code says
//! `fold::DeviceReduce` while the linker sees the version and, for the templates, the architectures:
//! - `FOLD_NAMESPACE_BEGIN` opens `fold::FOLD_ABI_NAMESPACE`, e.g. `fold::v0_1_0_sm_800_900` in a translation
//!   unit compiled for sm_80 and sm_90 (`__CUDA_ARCH_LIST__`, as CCCL does). Two translation units built for
//!   different architectures therefore never share a kernel, a host plan or a per-device cache: each runs the
//!   kernels it compiled, under the policies it compiled them with.
//! - `FOLD_VERSION_NAMESPACE_BEGIN` opens `fold::FOLD_VERSION_NAMESPACE`, e.g. `fold::v0_1_0`: for the non-template
//!   functions of `fold::precompiled`, which g++ callers and the nvcc-compiled library must name alike.
#pragma once

#define FOLD_VERSION_MAJOR 0
#define FOLD_VERSION_MINOR 1
#define FOLD_VERSION_PATCH 0
//! `major * 10000 + minor * 100 + patch`.
#define FOLD_VERSION (FOLD_VERSION_MAJOR * 10000 + FOLD_VERSION_MINOR * 100 + FOLD_VERSION_PATCH)

#define FOLD_DETAIL_CAT_(a, b) a##b
#define FOLD_DETAIL_CAT(a, b) FOLD_DETAIL_CAT_(a, b)

// `a_b_c...`: up to 16 arguments joined by underscores (the architectures of `__CUDA_ARCH_LIST__`).
#define FOLD_DETAIL_COUNT(...) FOLD_DETAIL_COUNT_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define FOLD_DETAIL_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, n, ...) n
#define FOLD_DETAIL_JOIN_1(a) a
#define FOLD_DETAIL_JOIN_2(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_1(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_3(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_2(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_4(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_3(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_5(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_4(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_6(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_5(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_7(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_6(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_8(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_7(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_9(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_8(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_10(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_9(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_11(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_10(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_12(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_11(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_13(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_12(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_14(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_13(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_15(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_14(__VA_ARGS__))
#define FOLD_DETAIL_JOIN_16(a, ...) FOLD_DETAIL_CAT(FOLD_DETAIL_CAT(a, _), FOLD_DETAIL_JOIN_15(__VA_ARGS__))
#define FOLD_DETAIL_JOIN(...) FOLD_DETAIL_CAT(FOLD_DETAIL_JOIN_, FOLD_DETAIL_COUNT(__VA_ARGS__))(__VA_ARGS__)

//! `v<major>_<minor>_<patch>`.
#define FOLD_VERSION_NAMESPACE                                                                                         \
  FOLD_DETAIL_JOIN(FOLD_DETAIL_CAT(v, FOLD_VERSION_MAJOR), FOLD_VERSION_MINOR, FOLD_VERSION_PATCH)

//! `v<major>_<minor>_<patch>_sm_<arch>_<arch>...` (`_sm_none` where the compiler names no CUDA architecture).
#if defined(__CUDA_ARCH_LIST__)
#define FOLD_ABI_NAMESPACE FOLD_DETAIL_JOIN(FOLD_VERSION_NAMESPACE, sm, __CUDA_ARCH_LIST__)
#else
#define FOLD_ABI_NAMESPACE FOLD_DETAIL_JOIN(FOLD_VERSION_NAMESPACE, sm, none)
#endif

#define FOLD_NAMESPACE_BEGIN                                                                                           \
  namespace fold                                                                                                       \
  {                                                                                                                    \
  inline namespace FOLD_ABI_NAMESPACE                                                                                  \
  {
#define FOLD_NAMESPACE_END                                                                                             \
  }                                                                                                                    \
  }

#define FOLD_VERSION_NAMESPACE_BEGIN                                                                                   \
  namespace fold                                                                                                       \
  {                                                                                                                    \
  inline namespace FOLD_VERSION_NAMESPACE                                                                              \
  {
#define FOLD_VERSION_NAMESPACE_END                                                                                     \
  }                                                                                                                    \
  }
