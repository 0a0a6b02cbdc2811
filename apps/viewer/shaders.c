/* carom viewer — shader sources.
 *
 * Spheres are ray-cast impostors: each ball is one camera-facing square,
 * instanced, and the fragment shader intersects the eye ray with the exact
 * sphere and writes its depth. The silhouette is therefore exact at any
 * size and zoom (the render test checks pixels against the projection),
 * and ten thousand balls cost ten thousand squares.
 *
 * Lighting is shared: a key light fixed to the camera (above-left), a
 * hemisphere ambient and a Blinn highlight, in eye space.
 */
#include "shaders.h"

#define LIGHTING                                                                  \
    "vec3 shade(vec3 base, vec3 n, vec3 to_eye) {\n"                              \
    "    vec3 l = normalize(vec3(-0.45, 0.65, 0.62));\n"                          \
    "    float diffuse = max(dot(n, l), 0.0);\n"                                  \
    "    float hemi = 0.5 + 0.5 * n.y;\n"                                         \
    "    vec3 h = normalize(l + to_eye);\n"                                       \
    "    float spec = diffuse > 0.0 ? pow(max(dot(n, h), 0.0), 48.0) : 0.0;\n"    \
    "    return base * (0.22 + 0.13 * hemi + 0.68 * diffuse) + vec3(0.22 * spec);\n" \
    "}\n"

const char shader_sphere_vs[] =
    "#version 330 core\n"
    "layout(location = 0) in vec2 corner;\n"
    "layout(location = 1) in vec4 center_radius;\n"
    "layout(location = 2) in vec3 color;\n"
    "layout(location = 3) in vec4 orientation;\n"
    "uniform mat4 view;\n"
    "uniform mat4 proj;\n"
    "out vec3 v_pos;\n"
    "flat out vec3 v_center;\n"
    "flat out float v_radius;\n"
    "flat out vec3 v_color;\n"
    "flat out vec4 v_q;\n"
    "void main() {\n"
    "    vec3 c = (view * vec4(center_radius.xyz, 1.0)).xyz;\n"
    "    float r = center_radius.w;\n"
    "    float d = length(c);\n"
    "    vec3 w = c / d;\n"
    "    vec3 helper = abs(w.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);\n"
    "    vec3 a = normalize(cross(helper, w));\n"
    "    vec3 b = cross(w, a);\n"
    /* The square through the centre, facing the eye, that just covers the
     * cone of rays tangent to the sphere: half-size r d / sqrt(d^2 - r^2).
     * An eye inside the ball gets nothing (a degenerate square). */
    "    float s = d > r ? 1.02 * r * d / sqrt(d * d - r * r) : 0.0;\n"
    "    vec3 p = c + (corner.x * a + corner.y * b) * s;\n"
    "    v_pos = p;\n"
    "    v_center = c;\n"
    "    v_radius = r;\n"
    "    v_color = color;\n"
    "    v_q = orientation;\n"
    "    gl_Position = proj * vec4(p, 1.0);\n"
    "}\n";

const char shader_sphere_fs[] =
    "#version 330 core\n"
    "in vec3 v_pos;\n"
    "flat in vec3 v_center;\n"
    "flat in float v_radius;\n"
    "flat in vec3 v_color;\n"
    "flat in vec4 v_q;\n"
    "uniform mat4 view;\n"
    "uniform mat4 proj;\n"
    "out vec4 frag;\n"
    LIGHTING
    /* v rotated by the conjugate of q = (w, x, y, z): world to body frame. */
    "vec3 to_body(vec4 q, vec3 v) {\n"
    "    vec3 u = -q.yzw;\n"
    "    return v + 2.0 * cross(u, cross(u, v) + q.x * v);\n"
    "}\n"
    "void main() {\n"
    "    vec3 dir = normalize(v_pos);\n"
    "    float b = dot(dir, v_center);\n"
    "    float disc = b * b - (dot(v_center, v_center) - v_radius * v_radius);\n"
    "    if (disc < 0.0) discard;\n"
    "    float t = b - sqrt(disc);\n"
    "    if (t <= 0.0) discard;\n"
    "    vec3 hit = t * dir;\n"
    "    vec3 n = (hit - v_center) / v_radius;\n"
    "    vec4 clip = proj * vec4(hit, 1.0);\n"
    "    float z = clip.z / clip.w;\n"
    "    if (z < -1.0 || z > 1.0) discard;\n"
    "    gl_FragDepth = 0.5 * z + 0.5;\n"
    /* Two-tone octants in the body frame show the ball turning. */
    "    vec3 nb = to_body(v_q, transpose(mat3(view)) * n);\n"
    "    float tone = nb.x * nb.y * nb.z > 0.0 ? 1.0 : 0.78;\n"
    "    frag = vec4(shade(v_color * tone, n, -dir), 1.0);\n"
    "}\n";

const char shader_mesh_vs[] =
    "#version 330 core\n"
    "layout(location = 0) in vec3 position;\n"
    "layout(location = 1) in vec3 normal;\n"
    "layout(location = 2) in vec3 color;\n"
    "layout(location = 3) in vec2 uv;\n"
    "layout(location = 4) in float grid;\n"
    "uniform mat4 view;\n"
    "uniform mat4 proj;\n"
    "out vec3 v_pos;\n"
    "out vec3 v_normal;\n"
    "out vec3 v_color;\n"
    "out vec2 v_uv;\n"
    "flat out float v_grid;\n"
    "void main() {\n"
    "    vec4 p = view * vec4(position, 1.0);\n"
    "    v_pos = p.xyz;\n"
    "    v_normal = mat3(view) * normal;\n"
    "    v_color = color;\n"
    "    v_uv = uv;\n"
    "    v_grid = grid;\n"
    "    gl_Position = proj * p;\n"
    "}\n";

const char shader_mesh_fs[] =
    "#version 330 core\n"
    "in vec3 v_pos;\n"
    "in vec3 v_normal;\n"
    "in vec3 v_color;\n"
    "in vec2 v_uv;\n"
    "flat in float v_grid;\n"
    "out vec4 frag;\n"
    LIGHTING
    "void main() {\n"
    "    vec3 base = v_color;\n"
    "    if (v_grid > 0.0) {\n"
    /* Anti-aliased lines one pixel wide at every multiple of the spacing. */
    "        vec2 g = v_uv / v_grid;\n"
    "        vec2 f = abs(fract(g - 0.5) - 0.5) / max(fwidth(g), vec2(1e-6));\n"
    "        float line = 1.0 - min(min(f.x, f.y), 1.0);\n"
    "        base *= 1.0 - 0.3 * line;\n"
    "    }\n"
    "    frag = vec4(shade(base, normalize(v_normal), normalize(-v_pos)), 1.0);\n"
    "}\n";

const char shader_overlay_vs[] =
    "#version 330 core\n"
    "layout(location = 0) in vec2 position;\n"
    "layout(location = 1) in vec4 color;\n"
    "uniform vec2 viewport;\n"
    "out vec4 v_color;\n"
    "void main() {\n"
    "    v_color = color;\n"
    "    gl_Position = vec4(2.0 * position.x / viewport.x - 1.0, 1.0 - 2.0 * position.y / viewport.y, 0.0, 1.0);\n"
    "}\n";

const char shader_overlay_fs[] =
    "#version 330 core\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_color; }\n";
