# Script mode: cmake -DOUT=<file.cc> -DDIR=<kernel_templates> -P embed_templates.cmake
include(${CMAKE_CURRENT_LIST_DIR}/JitkEmbed.cmake)
file(GLOB files ${DIR}/*.h)
list(SORT files)
jitk_embed_files(OUT ${OUT} FILES ${files})
