# oomscope_warnings(target): the project's warning set, errors in CI (OOMSCOPE_WERROR).
function(oomscope_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(OOMSCOPE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# oomscope_glob(out dir): the .cpp files of one folder (not recursive), re-globbed when files are added.
function(oomscope_glob out dir)
  file(GLOB files CONFIGURE_DEPENDS ${dir}/*.cpp)
  set(${out} ${files} PARENT_SCOPE)
endfunction()
