# cmake -DLIBRARY=<path to libjitk_c.so> -P bundle_runtime_deps.cmake
#
# Copies the abseil shared objects LIBRARY needs (directly or through each
# other) into LIBRARY's directory, where its $ORIGIN rpath finds them.
get_filename_component(dir ${LIBRARY} DIRECTORY)
# Earlier copies would be found twice (through $ORIGIN and the system paths).
file(GLOB stale ${dir}/libabsl_*)
if(stale)
  file(REMOVE ${stale})
endif()
file(GET_RUNTIME_DEPENDENCIES
     LIBRARIES ${LIBRARY}
     RESOLVED_DEPENDENCIES_VAR resolved
     UNRESOLVED_DEPENDENCIES_VAR unresolved
     PRE_INCLUDE_REGEXES "^libabsl_"
     PRE_EXCLUDE_REGEXES ".*"
     POST_INCLUDE_REGEXES "libabsl_[^/]*$"
     POST_EXCLUDE_REGEXES ".*")
if(unresolved)
  message(FATAL_ERROR "libjitk_c.so needs shared objects that cannot be found: ${unresolved}")
endif()
foreach(dep IN LISTS resolved)
  get_filename_component(name ${dep} NAME)
  file(COPY_FILE ${dep} ${dir}/${name})
endforeach()
list(LENGTH resolved count)
message(STATUS "libjitk_c.so: ${count} abseil shared objects in ${dir}")
