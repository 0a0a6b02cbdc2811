/* carom viewer — headless OpenGL through EGL (see headless.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "gl_api.h"
#include "headless.h"

struct headless {
    EGLDisplay display;
    EGLContext context;
    int width, height, samples;
    GLuint fbo, color_rb, depth_rb;          /* drawn into (multisampled) */
    GLuint resolve_fbo, resolve_rb;          /* resolved, read back */
    char renderer[128];
};

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    default: return "an EGL error";
    }
}

static bool has_extension(const char *list, const char *name)
{
    if (list == NULL) return false;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

/* The first display that initialises: surfaceless (Mesa), then the first
 * EGL device (NVIDIA and Mesa), then the default display. */
static EGLDisplay open_display(char *err, size_t err_size)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLint major, minor;
    if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay d = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) return d;
    }
    if (get_platform_display && has_extension(client, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (query_devices && query_devices(8, devices, &count))
            for (EGLint i = 0; i < count; ++i) {
                EGLDisplay d = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
                if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) return d;
            }
    }
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) return d;
    snprintf(err, err_size, "no headless OpenGL: eglInitialize failed on the surfaceless, device and default "
                            "displays (%s); is Mesa's libegl-mesa0 installed?",
             egl_error_name(eglGetError()));
    return EGL_NO_DISPLAY;
}

static int fail(headless *h, char *err, size_t err_size, const char *what)
{
    snprintf(err, err_size, "no headless OpenGL: %s failed (%s)", what, egl_error_name(eglGetError()));
    headless_destroy(h);
    return -1;
}

int headless_create(int width, int height, int samples, headless **out, char *err, size_t err_size)
{
    headless *h = calloc(1, sizeof *h);
    if (h == NULL) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    h->width = width;
    h->height = height;
    h->display = open_display(err, err_size);
    if (h->display == EGL_NO_DISPLAY) {
        free(h);
        return -1;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) return fail(h, err, err_size, "eglBindAPI(EGL_OPENGL_API)");
    /* No surface at all: the context draws only into framebuffer objects. */
    static const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = NULL;
    EGLint configs = 0;
    const char *ext = eglQueryString(h->display, EGL_EXTENSIONS);
    bool configless = has_extension(ext, "EGL_KHR_no_config_context") || has_extension(ext, "EGL_MESA_configless_context");
    if (!eglChooseConfig(h->display, config_attribs, &config, 1, &configs) || configs < 1) {
        if (!configless) return fail(h, err, err_size, "eglChooseConfig");
        config = NULL; /* EGL_NO_CONFIG_KHR */
    }
    static const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                             EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                             EGL_NONE};
    h->context = eglCreateContext(h->display, config, EGL_NO_CONTEXT, context_attribs);
    if (h->context == EGL_NO_CONTEXT) return fail(h, err, err_size, "eglCreateContext (OpenGL 3.3 core)");
    if (!eglMakeCurrent(h->display, EGL_NO_SURFACE, EGL_NO_SURFACE, h->context))
        return fail(h, err, err_size, "eglMakeCurrent without a surface");

    GLint max_samples = 1;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    h->samples = samples < 1 ? 1 : (samples > max_samples ? max_samples : samples);
    const char *name = (const char *)glGetString(GL_RENDERER);
    snprintf(h->renderer, sizeof h->renderer, "%s", name ? name : "unknown");

    glGenFramebuffers(1, &h->fbo);
    glGenRenderbuffers(1, &h->color_rb);
    glGenRenderbuffers(1, &h->depth_rb);
    glBindFramebuffer(GL_FRAMEBUFFER, h->fbo);
    glBindRenderbuffer(GL_RENDERBUFFER, h->color_rb);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, h->samples > 1 ? h->samples : 0, GL_RGBA8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, h->color_rb);
    glBindRenderbuffer(GL_RENDERBUFFER, h->depth_rb);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, h->samples > 1 ? h->samples : 0, GL_DEPTH_COMPONENT24, width,
                                     height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, h->depth_rb);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status == GL_FRAMEBUFFER_COMPLETE) {
        glGenFramebuffers(1, &h->resolve_fbo);
        glGenRenderbuffers(1, &h->resolve_rb);
        glBindFramebuffer(GL_FRAMEBUFFER, h->resolve_fbo);
        glBindRenderbuffer(GL_RENDERBUFFER, h->resolve_rb);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, h->resolve_rb);
        status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    }
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(err, err_size, "no headless OpenGL: a %dx%d framebuffer with %d samples is incomplete (0x%x)", width,
                 height, h->samples, status);
        headless_destroy(h);
        return -1;
    }
    headless_bind(h);
    *out = h;
    return 0;
}

void headless_bind(headless *h) { glBindFramebuffer(GL_FRAMEBUFFER, h->fbo); }

int headless_read_rgb(headless *h, unsigned char *rgb, char *err, size_t err_size)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, h->fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, h->resolve_fbo);
    glBlitFramebuffer(0, 0, h->width, h->height, 0, 0, h->width, h->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, h->resolve_fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    size_t row = (size_t)h->width * 3;
    unsigned char *tmp = malloc(row * (size_t)h->height);
    if (tmp == NULL) {
        snprintf(err, err_size, "out of memory for a %dx%d image", h->width, h->height);
        return -1;
    }
    glReadPixels(0, 0, h->width, h->height, GL_RGB, GL_UNSIGNED_BYTE, tmp);
    GLenum e = glGetError();
    headless_bind(h);
    if (e != GL_NO_ERROR) {
        free(tmp);
        snprintf(err, err_size, "reading the image back failed (OpenGL error 0x%x)", e);
        return -1;
    }
    /* OpenGL's rows run bottom to top; images run top to bottom. */
    for (int y = 0; y < h->height; ++y) memcpy(rgb + (size_t)y * row, tmp + (size_t)(h->height - 1 - y) * row, row);
    free(tmp);
    return 0;
}

const char *headless_renderer_name(headless *h) { return h->renderer; }

void headless_destroy(headless *h)
{
    if (h == NULL) return;
    if (h->context != EGL_NO_CONTEXT && h->context != NULL) {
        GLuint fbos[] = {h->fbo, h->resolve_fbo};
        GLuint rbs[] = {h->color_rb, h->depth_rb, h->resolve_rb};
        glDeleteFramebuffers(2, fbos);
        glDeleteRenderbuffers(3, rbs);
        eglMakeCurrent(h->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(h->display, h->context);
    }
    /* No eglTerminate: an EGL display is one per process and stays valid
     * until exit anyway, and Mesa's terminate both loses a few of its own
     * allocations and unloads the driver, which leaves LeakSanitizer reports
     * that cannot even name the library. Released, the context is gone;
     * the display's driver stays reachable until the process ends. */
    eglReleaseThread();
    free(h);
}
