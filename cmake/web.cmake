# carom export-web (issue 6): the replay page's JavaScript, bundled by
# esbuild from web/src with three.js and uPlot, and embedded in the carom
# binary with the page's HTML and CSS, so that export-web needs no files at
# run time. The npm packages come from web/package-lock.json through
# `make setup` (npm ci). Without them carom builds, and export-web says it
# was built without the page.

set(CAROM_WEB_DIR ${PROJECT_SOURCE_DIR}/web)
set(CAROM_ESBUILD ${CAROM_WEB_DIR}/node_modules/.bin/esbuild)
find_program(CAROM_NODE node)
set(CAROM_HAVE_WEB OFF)
if(CAROM_NODE AND EXISTS ${CAROM_ESBUILD} AND EXISTS ${CAROM_WEB_DIR}/node_modules/three/package.json
   AND EXISTS ${CAROM_WEB_DIR}/node_modules/uplot/package.json)
  set(CAROM_HAVE_WEB ON)
  set(out ${PROJECT_BINARY_DIR}/web)
  file(GLOB CAROM_WEB_SOURCES CONFIGURE_DEPENDS ${CAROM_WEB_DIR}/src/*)
  add_custom_command(
    OUTPUT ${out}/replay.js ${out}/replay.css
    COMMAND ${CAROM_ESBUILD} ${CAROM_WEB_DIR}/src/replay.js --bundle --minify --format=iife --target=es2020
            --log-level=warning --outfile=${out}/replay.js
    DEPENDS ${CAROM_WEB_SOURCES} ${CAROM_WEB_DIR}/package-lock.json
    WORKING_DIRECTORY ${CAROM_WEB_DIR}
    COMMENT "Bundling the replay page (esbuild: three.js, uPlot)")
  add_executable(carom_embed_bytes ${PROJECT_SOURCE_DIR}/cmake/embed_bytes.c)
  add_custom_command(
    OUTPUT ${out}/web_assets.h
    COMMAND carom_embed_bytes ${out}/web_assets.h web_page_html ${CAROM_WEB_DIR}/src/replay.html
            web_page_js ${out}/replay.js web_page_css ${out}/replay.css
    DEPENDS carom_embed_bytes ${out}/replay.js ${out}/replay.css ${CAROM_WEB_DIR}/src/replay.html)
  target_sources(carom_cli PRIVATE ${out}/web_assets.h)
  target_include_directories(carom_cli PRIVATE ${out})
  target_compile_definitions(carom_cli PRIVATE CAROM_HAVE_WEB=1)
else()
  message(STATUS "carom export-web: web/node_modules is missing (make setup runs npm ci in web/); "
                 "built without the replay page")
endif()
message(STATUS "carom export-web: ${CAROM_HAVE_WEB}")
