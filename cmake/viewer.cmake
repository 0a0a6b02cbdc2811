# carom's pictures (issue 6): the viewer's pure parts, the headless renderer
# (carom render), the window (carom view). Included at the end of the top
# CMakeLists.txt, after carom_cli and the tests exist.
#
#   carom_draw    camera, snapshot, draw list, picking, simulation thread:
#                 no OpenGL, always built, unit-tested
#   carom_gl      OpenGL 3.3 renderer, overlay, EGL headless context, PNG:
#                 built when OpenGL (GLVND), EGL, libpng and stb are found
#   carom_window  the GLFW window: built when GLFW is found too
#
# With CAROM_VIEWER=OFF, or when a library is missing, carom still builds:
# `carom render` and `carom view` then say what they were built without.

option(CAROM_VIEWER "Build carom view (GLFW) and carom render (EGL) when their libraries are found" ON)

set(CAROM_VIEWER_DIR ${PROJECT_SOURCE_DIR}/apps/viewer)
find_package(Threads REQUIRED)

add_library(carom_draw STATIC
  ${CAROM_VIEWER_DIR}/camera.c ${CAROM_VIEWER_DIR}/snapshot.c ${CAROM_VIEWER_DIR}/draw_list.c
  ${CAROM_VIEWER_DIR}/scene_draw.c ${CAROM_VIEWER_DIR}/hud.c ${CAROM_VIEWER_DIR}/picking.c
  ${CAROM_VIEWER_DIR}/sim_thread.c)
target_include_directories(carom_draw PUBLIC ${CAROM_VIEWER_DIR})
target_link_libraries(carom_draw PUBLIC carom Threads::Threads)
target_link_libraries(carom_cli PRIVATE carom_draw)

set(CAROM_HAVE_RENDER OFF)
set(CAROM_HAVE_VIEW OFF)
if(CAROM_VIEWER)
  set(OpenGL_GL_PREFERENCE GLVND)
  find_package(OpenGL COMPONENTS OpenGL EGL)
  find_package(PNG)
  find_path(STB_INCLUDE_DIR stb/stb_easy_font.h)
  find_package(PkgConfig)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(GLFW3 IMPORTED_TARGET glfw3)
  endif()

  if(OpenGL_OpenGL_FOUND AND OpenGL_EGL_FOUND AND PNG_FOUND AND STB_INCLUDE_DIR)
    set(CAROM_HAVE_RENDER ON)
    add_library(carom_gl STATIC
      ${CAROM_VIEWER_DIR}/gl_util.c ${CAROM_VIEWER_DIR}/shaders.c ${CAROM_VIEWER_DIR}/renderer.c
      ${CAROM_VIEWER_DIR}/overlay.c ${CAROM_VIEWER_DIR}/headless.c ${CAROM_VIEWER_DIR}/png_out.c
      ${CAROM_VIEWER_DIR}/render.c)
    target_include_directories(carom_gl PRIVATE ${STB_INCLUDE_DIR})
    target_link_libraries(carom_gl PUBLIC carom_draw OpenGL::OpenGL OpenGL::EGL PNG::PNG)
    target_link_libraries(carom_cli PRIVATE carom_gl)
    target_compile_definitions(carom_cli PRIVATE CAROM_HAVE_RENDER=1)
    if(GLFW3_FOUND)
      set(CAROM_HAVE_VIEW ON)
      add_library(carom_window STATIC ${CAROM_VIEWER_DIR}/viewer.c)
      target_link_libraries(carom_window PUBLIC carom_gl PkgConfig::GLFW3)
      target_link_libraries(carom_cli PRIVATE carom_window)
      target_compile_definitions(carom_cli PRIVATE CAROM_HAVE_VIEW=1)
    else()
      message(STATUS "carom view: GLFW (libglfw3-dev) not found; carom view will say it was built without a display")
    endif()
  else()
    message(STATUS "carom render/view: OpenGL/EGL (libgl-dev, libegl-dev), libpng-dev or libstb-dev not found; "
                   "built without them")
  endif()
endif()
message(STATUS "carom render: ${CAROM_HAVE_RENDER}, carom view: ${CAROM_HAVE_VIEW}")

# Tests of these parts (tests/CMakeLists.txt makes every tests/test_*.c a
# program linked with carom_scene; these need the viewer's libraries too).
foreach(t test_viewer_draw test_sim_thread)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE carom_draw)
  endif()
endforeach()
if(TARGET test_render)
  if(CAROM_HAVE_RENDER)
    target_link_libraries(test_render PRIVATE carom_draw PNG::PNG)
    target_compile_definitions(test_render PRIVATE CAROM_HAVE_RENDER=1)
  else()
    target_link_libraries(test_render PRIVATE carom_draw)
  endif()
endif()

# The browser replay (carom export-web) draws with the same draw list.
include(${CMAKE_CURRENT_LIST_DIR}/web.cmake)
