// SPDX-License-Identifier: Apache-2.0
// One program, two translation units that compile fold for different architecture lists (two_architectures_a.cu
// and _b.cu, the same checks), plus fold::precompiled, called from plain C++ (two_architectures.cpp).
#pragma once

//! What one translation unit's fold saw and found.
struct UnitReport
{
  int arch;     //!< the PTX version its dispatch selected policies with (`__CUDA_ARCH__` spelling)
  int failures; //!< results that differ from the host reference (each printed)
};

UnitReport run_unit_a();
UnitReport run_unit_b();
