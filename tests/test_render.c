/* carom render draws what the camera sees: a ball whose projected centre is
 * computed here, independently of the viewer's camera code, from the same
 * camera parameters given on the command line, lands on the expected
 * pixels; every pixel away from it is the background.
 *
 * The scene has no gravity and the ball moves, so the image also checks
 * that the world was stepped to --time (the ball would be ~50 pixels away
 * at its starting point).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#ifdef CAROM_HAVE_RENDER
#include <png.h>

#include "renderer.h" /* RENDER_BACKGROUND_*: the colour promised for empty pixels */

#define PI 3.14159265358979323846
#define W 400
#define H 300

/* The camera of the command line below. */
static const double yaw_deg = 30, pitch_deg = 20, distance = 6, fov_deg = 40;
static const double target[3] = {0, 0, 1};
/* The ball: starts at x0 with velocity v, no gravity, drawn at time T. */
static const double radius = 0.3, x0[3] = {0.4, -0.3, 1.0}, v[3] = {1.0, 0.0, 0.5}, T = 0.4;

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* A textbook look-at camera with z up and a vertical field of view. */
static void project(const double p[3], double *px, double *py, double *depth)
{
    double y = yaw_deg * PI / 180, pt = pitch_deg * PI / 180, t = tan(0.5 * fov_deg * PI / 180);
    double eye[3] = {target[0] + distance * cos(pt) * cos(y), target[1] + distance * cos(pt) * sin(y),
                     target[2] + distance * sin(pt)};
    double f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    double n = sqrt(dot(f, f));
    for (int i = 0; i < 3; ++i) f[i] /= n;
    double r[3] = {f[1], -f[0], 0}; /* f x (0, 0, 1) */
    n = sqrt(dot(r, r));
    for (int i = 0; i < 3; ++i) r[i] /= n;
    double u[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]};
    double d[3] = {p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]};
    *depth = sqrt(dot(d, d));
    double z = dot(d, f);
    *px = 0.5 * (dot(d, r) / (z * t * ((double)W / H)) + 1.0) * W;
    *py = 0.5 * (1.0 - dot(d, u) / (z * t)) * H;
}

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/carom-test-render-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static unsigned char *read_png(const char *path, int *w, int *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) return NULL;
    img.format = PNG_FORMAT_RGB;
    unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
    if (buf == NULL || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        free(buf);
        png_image_free(&img);
        return NULL;
    }
    *w = (int)img.width;
    *h = (int)img.height;
    return buf;
}

static bool is_background(const unsigned char *p)
{
    return p[0] == RENDER_BACKGROUND_R && p[1] == RENDER_BACKGROUND_G && p[2] == RENDER_BACKGROUND_B;
}

static void ball_lands_on_projected_pixels(void **state)
{
    (void)state;
    char scene[128], image[128], cmd[1024];
    snprintf(scene, sizeof scene, "%s/ball.json", dir);
    snprintf(image, sizeof image, "%s/ball.png", dir);
    FILE *f = fopen(scene, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"gravity\": [0, 0, 0], \"dt\": 0.001, \"duration\": 1,\n"
            " \"bodies\": [{\"radius\": %.17g, \"position\": [%.17g, %.17g, %.17g], \"velocity\": [%.17g, %.17g, %.17g]}]}\n",
            radius, x0[0], x0[1], x0[2], v[0], v[1], v[2]);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "'%s' render '%s' --out '%s' --time %g --size %dx%d --samples 1 --camera %g,%g,%g --target %g,%g,%g "
             "--fov %g --quiet",
             CAROM_BINARY, scene, image, T, W, H, yaw_deg, pitch_deg, distance, target[0], target[1], target[2], fov_deg);
    assert_int_equal(system(cmd), 0);

    int w = 0, h = 0;
    unsigned char *rgb = read_png(image, &w, &h);
    assert_non_null(rgb);
    assert_int_equal(w, W);
    assert_int_equal(h, H);

    double c[3] = {x0[0] + v[0] * T, x0[1] + v[1] * T, x0[2] + v[2] * T};
    double cx, cy, depth;
    project(c, &cx, &cy, &depth);
    /* The silhouette's radius in pixels: the tangent cone's half-angle
     * asin(r / D) seen through the field of view. */
    double rpx = tan(asin(radius / depth)) / tan(0.5 * fov_deg * PI / 180) * 0.5 * H;
    print_message("ball centre projects to (%.2f, %.2f), silhouette radius %.2f px\n", cx, cy, rpx);

    double sx = 0, sy = 0;
    long count = 0, inside_missing = 0, outside_drawn = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const unsigned char *p = rgb + 3 * ((size_t)y * W + x);
            double dx = x + 0.5 - cx, dy = y + 0.5 - cy, d = sqrt(dx * dx + dy * dy);
            bool bg = is_background(p);
            if (!bg) {
                sx += x + 0.5;
                sy += y + 0.5;
                ++count;
            }
            if (d < 0.9 * rpx - 1.0 && bg) ++inside_missing;
            if (d > 1.1 * rpx + 1.0 && !bg) ++outside_drawn;
        }
    free(rgb);
    print_message("%ld ball pixels, centroid (%.2f, %.2f)\n", count, count ? sx / count : 0, count ? sy / count : 0);
    assert_true(count > 0);
    /* The ball covers its disc and nothing else is drawn. */
    assert_int_equal(inside_missing, 0);
    assert_int_equal(outside_drawn, 0);
    /* Its centre and size are where the projection says. Perspective makes
     * an off-axis silhouette a slightly longer ellipse: allow a pixel and a
     * few per cent. */
    assert_true(fabs(sx / count - cx) < 1.5);
    assert_true(fabs(sy / count - cy) < 1.5);
    double area = PI * rpx * rpx;
    assert_true(fabs(count - area) < 0.06 * area);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(ball_lands_on_projected_pixels)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
#else
static void skipped(void **state)
{
    (void)state;
    skip(); /* built without headless OpenGL: carom render only says so */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(skipped)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
