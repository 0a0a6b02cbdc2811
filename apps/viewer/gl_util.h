/* carom viewer — compiling and linking GLSL programs with readable errors. */
#ifndef CAROM_VIEWER_GL_UTIL_H
#define CAROM_VIEWER_GL_UTIL_H

#include <stddef.h>

#include "gl_api.h"

/* A linked program, or 0 with the compiler's or linker's log in err. */
GLuint gl_program(const char *name, const char *vs, const char *fs, char *err, size_t err_size);

#endif
