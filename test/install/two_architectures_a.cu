// SPDX-License-Identifier: Apache-2.0
// Compiled for the first architecture list (see CMakeLists.txt).
#include "two_architectures_checks.cuh"

UnitReport run_unit_a()
{
  return run_checks("a");
}
