# Included at the end of the top-level CMakeLists.txt, once every target exists: the generated version header
# (version, git commit, optional parts) for oomscope and oomscope-cli. See cmake/OomscopeVersion.cmake.

find_program(OOMSCOPE_GIT git)
mark_as_advanced(OOMSCOPE_GIT)

# NVML is loaded with dlopen, so it needs nothing at build time: it is built in when the live code that loads
# it is (core/live/agent). A build can say otherwise with -DOOMSCOPE_WITH_NVML=ON|OFF.
if(NOT DEFINED OOMSCOPE_WITH_NVML)
  set(OOMSCOPE_WITH_NVML OFF)
  if(TARGET oomscope_live_agent)
    file(GLOB _oomscope_live_sources ${PROJECT_SOURCE_DIR}/core/live/agent/*.cpp)
    foreach(_oomscope_source ${_oomscope_live_sources})
      file(STRINGS ${_oomscope_source} _oomscope_nvml REGEX "libnvidia-ml\\.so")
      if(_oomscope_nvml)
        set(OOMSCOPE_WITH_NVML ON)
      endif()
    endforeach()
  endif()
endif()

set(_oomscope_torch_version "")
if(TARGET oomscope-demo-trainer)
  # find_package(Torch) may have run in a subdirectory; its Torch_DIR is a cache variable, seen everywhere.
  set(_oomscope_torch_version "version unknown")
  if(Torch_VERSION)
    set(_oomscope_torch_version "${Torch_VERSION}")
  elseif(Torch_DIR AND EXISTS ${Torch_DIR}/TorchConfigVersion.cmake)
    file(STRINGS ${Torch_DIR}/TorchConfigVersion.cmake _oomscope_torch_line REGEX "set\\(PACKAGE_VERSION \"")
    if(_oomscope_torch_line MATCHES "\"([^\"]+)\"")
      set(_oomscope_torch_version "${CMAKE_MATCH_1}")
    endif()
  endif()
endif()
set(_oomscope_cuda_version "")
if(CUDAToolkit_FOUND)
  set(_oomscope_cuda_version "${CUDAToolkit_VERSION}")
endif()
set(_oomscope_cudart OFF)
if(CUDAToolkit_FOUND AND TARGET oomscope_live_agent)
  get_target_property(_oomscope_live_links oomscope_live_agent LINK_LIBRARIES)
  if("CUDA::cudart_static" IN_LIST _oomscope_live_links)
    set(_oomscope_cudart ON)
  endif()
endif()

set(OOMSCOPE_GENERATED_DIR ${PROJECT_BINARY_DIR}/generated)
add_custom_target(oomscope_version_header
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${OOMSCOPE_GENERATED_DIR}/oomscope_version.h
          -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DVERSION=${PROJECT_VERSION} -DGIT=${OOMSCOPE_GIT}
          -DCUDA_VERSION=${_oomscope_cuda_version} -DCUDART=${_oomscope_cudart} -DNVML=${OOMSCOPE_WITH_NVML}
          -DTORCH_VERSION=${_oomscope_torch_version}
          -P ${PROJECT_SOURCE_DIR}/cmake/OomscopeVersion.cmake
  BYPRODUCTS ${OOMSCOPE_GENERATED_DIR}/oomscope_version.h
  COMMENT "Version header (git commit, optional parts)"
  VERBATIM)

foreach(_oomscope_target oomscope oomscope-cli)
  if(TARGET ${_oomscope_target})
    add_dependencies(${_oomscope_target} oomscope_version_header)
    target_include_directories(${_oomscope_target} PRIVATE ${OOMSCOPE_GENERATED_DIR})
  endif()
endforeach()
