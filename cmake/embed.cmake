# gpusim_embed_text(TARGET NAME FILE): compiles FILE into TARGET as
#   std::string_view gpusim::embedded::NAME();
# so the catalogs are data files in the tree and still part of the binary.
function(gpusim_embed_text target name file)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_${name}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DNAME=${name}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
    DEPENDS "${file}" ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE "${out}")
endfunction()
