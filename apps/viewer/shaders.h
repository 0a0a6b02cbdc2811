/* carom viewer — GLSL 3.30 sources of the renderer's programs. */
#ifndef CAROM_VIEWER_SHADERS_H
#define CAROM_VIEWER_SHADERS_H

extern const char shader_sphere_vs[], shader_sphere_fs[];
extern const char shader_mesh_vs[], shader_mesh_fs[];
extern const char shader_overlay_vs[], shader_overlay_fs[];

#endif
