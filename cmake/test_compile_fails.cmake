# Compiles SOURCE with the CUDA compiler and passes only if the compilation fails with EXPECT in its output: a
# user's mistake must stop the build with fold's sentence, not a wall of template errors. Run by ctest.
foreach(var COMPILER SOURCE INCLUDE_DIR EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "test_compile_fails.cmake: ${var} is not set")
  endif()
endforeach()
execute_process(COMMAND ${COMPILER} -std=c++17 -arch=sm_90 -I${INCLUDE_DIR} -c ${SOURCE} -o ${CMAKE_CURRENT_BINARY_DIR}/compile_fails.o
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but must not")
endif()
string(FIND "${out}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${SOURCE} failed without saying \"${EXPECT}\":\n${out}")
endif()
message(STATUS "${SOURCE} fails to compile, saying \"${EXPECT}\"")
