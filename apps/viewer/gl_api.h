/* carom viewer — the OpenGL 3.3 core API.
 *
 * Entry points are called directly: with GLVND (Debian's libOpenGL and
 * libGLdispatch) every function is exported and dispatched to whichever
 * context is current, a GLX one from GLFW or an EGL one from the headless
 * renderer, so no loader is needed.
 */
#ifndef CAROM_VIEWER_GL_API_H
#define CAROM_VIEWER_GL_API_H

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#endif
