// SPDX-License-Identifier: Apache-2.0
// Compiled for the second architecture list (see CMakeLists.txt).
#include "two_architectures_checks.cuh"

UnitReport run_unit_b()
{
  return run_checks("b");
}
