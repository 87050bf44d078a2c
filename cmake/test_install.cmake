# Installs the fold build in BUILD_DIR to a fresh prefix, then configures and builds the consumer project in
# SOURCE_DIR against it with find_package(fold). Run by ctest as install.find_package.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CUDA_ARCHITECTURES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "test_install.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix --config ${CONFIG})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
    -DCMAKE_BUILD_TYPE=${CONFIG} "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build --config ${CONFIG})
message(STATUS "find_package(fold) from ${WORK_DIR}/prefix: consumer built")
