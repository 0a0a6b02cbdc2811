/* carom viewer — GLSL program helpers. */
#include <stdio.h>

#include "gl_util.h"

static GLuint compile(const char *name, GLenum type, const char *src, char *err, size_t err_size)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        snprintf(err, err_size, "%s %s shader: %s", name, type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

GLuint gl_program(const char *name, const char *vs, const char *fs, char *err, size_t err_size)
{
    GLuint v = compile(name, GL_VERTEX_SHADER, vs, err, err_size);
    if (!v) return 0;
    GLuint f = compile(name, GL_FRAGMENT_SHADER, fs, err, err_size);
    if (!f) {
        glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        snprintf(err, err_size, "%s program: %s", name, log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}
