# FindNCCL: NCCL's header and library, as the imported target NCCL::NCCL (NCCL_FOUND, NCCL_VERSION,
# NCCL_INCLUDE_DIR, NCCL_LIBRARY). Looked for, in this order:
# - under NCCL_ROOT (a CMake variable or an environment variable): <root>/include/nccl.h, <root>/lib/libnccl.so*;
# - in the system's paths (Debian/Ubuntu's libnccl-dev: /usr/include/nccl.h, /usr/lib/x86_64-linux-gnu/libnccl.so);
# - in the Python package nvidia-nccl-cu13 (or -cu12) of the python3 on the PATH: site-packages/nvidia/nccl,
#   which ships lib/libnccl.so.2 without the unversioned link.
# The header and the library each come from the first of these places that has it; a library named only
# libnccl.so.2 (the Python package's) is found too.
set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT})
macro(_nccl_find)
  find_path(NCCL_INCLUDE_DIR nccl.h ${ARGN} PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR ${ARGN} PATH_SUFFIXES lib lib64)
endmacro()
if(_nccl_hints)
  _nccl_find(PATHS ${_nccl_hints} NO_DEFAULT_PATH)
endif()
_nccl_find()
if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
      OUTPUT_VARIABLE _nccl_python_root OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _nccl_python_rc)
    if(_nccl_python_rc EQUAL 0 AND _nccl_python_root)
      _nccl_find(PATHS ${_nccl_python_root} NO_DEFAULT_PATH)
    endif()
  endif()
endif()

if(NCCL_INCLUDE_DIR AND EXISTS ${NCCL_INCLUDE_DIR}/nccl.h)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3" NCCL_VERSION
                       "${_nccl_version_lines}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES IMPORTED_LOCATION ${NCCL_LIBRARY} INTERFACE_INCLUDE_DIRECTORIES
                                                                                 ${NCCL_INCLUDE_DIR})
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
