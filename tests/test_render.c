/* carom render draws what the camera sees: a ball whose projected centre is
 * computed here, independently of the viewer's camera code, from the same
 * camera parameters given on the command line, lands on the expected
 * pixels; every pixel away from it is the background. Likewise a turned
 * box fills the outline of its projected corners.
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

/* The convex hull of n 2D points (monotone chain), counter-clockwise in
 * pixel coordinates' sense; returns its size. */
static int cmp_xy(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

static double cross2(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int hull2d(double (*p)[2], int n, double (*h)[2])
{
    qsort(p, (size_t)n, sizeof *p, cmp_xy);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0) --k;
        h[k][0] = p[i][0], h[k][1] = p[i][1], ++k;
    }
    for (int i = n - 2, t = k + 1; i >= 0; --i) {
        while (k >= t && cross2(h[k - 2], h[k - 1], p[i]) <= 0) --k;
        h[k][0] = p[i][0], h[k][1] = p[i][1], ++k;
    }
    return k - 1;
}

/* Signed distance of (x, y) from the convex polygon h's edges, positive
 * on their left (inside when h turns counter-clockwise). */
static double inside_distance(double (*h)[2], int n, double x, double y)
{
    double d = INFINITY;
    for (int i = 0; i < n; ++i) {
        const double *a = h[i], *b = h[(i + 1) % n];
        double ex = b[0] - a[0], ey = b[1] - a[1], len = sqrt(ex * ex + ey * ey);
        double q[2] = {x, y};
        d = fmin(d, cross2(a, b, q) / len);
    }
    return d;
}

/* A box turned about a tilted axis, at rest without gravity: its pixels
 * fill the convex outline of its eight projected corners and nothing else. */
static void box_lands_on_projected_pixels(void **state)
{
    (void)state;
    char scene[128], image[128], cmd[1024];
    snprintf(scene, sizeof scene, "%s/box.json", dir);
    snprintf(image, sizeof image, "%s/box.png", dir);
    const double h[3] = {0.5, 0.3, 0.2}, c[3] = {0.2, 0.1, 1.1};
    /* A unit quaternion: 50 degrees about (1, 2, 3) / |(1, 2, 3)|. */
    double ang = 50.0 * PI / 180.0, an = sqrt(14.0);
    double q[4] = {cos(ang / 2), sin(ang / 2) / an, 2 * sin(ang / 2) / an, 3 * sin(ang / 2) / an};
    FILE *f = fopen(scene, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"gravity\": [0, 0, 0], \"dt\": 0.001, \"duration\": 1,\n"
            " \"bodies\": [{\"shape\": \"box\", \"half_extents\": [%.17g, %.17g, %.17g], \"position\": [%.17g, %.17g, %.17g],"
            " \"orientation\": [%.17g, %.17g, %.17g, %.17g]}]}\n",
            h[0], h[1], h[2], c[0], c[1], c[2], q[0], q[1], q[2], q[3]);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "'%s' render '%s' --out '%s' --time 0.01 --size %dx%d --samples 1 --camera %g,%g,%g --target %g,%g,%g "
             "--fov %g --quiet",
             CAROM_BINARY, scene, image, W, H, yaw_deg, pitch_deg, distance, target[0], target[1], target[2], fov_deg);
    assert_int_equal(system(cmd), 0);
    int w = 0, hh = 0;
    unsigned char *rgb = read_png(image, &w, &hh);
    assert_non_null(rgb);
    assert_int_equal(w, W);
    assert_int_equal(hh, H);

    /* The rotation matrix of q, and the corners c + R (+-h). */
    double qw = q[0], qx = q[1], qy = q[2], qz = q[3];
    double R[3][3] = {{1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)},
                      {2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)},
                      {2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)}};
    double pts[8][2], outline[10][2];
    for (int i = 0; i < 8; ++i) {
        double l[3] = {i & 1 ? h[0] : -h[0], i & 2 ? h[1] : -h[1], i & 4 ? h[2] : -h[2]}, p[3], depth;
        for (int r = 0; r < 3; ++r) p[r] = c[r] + R[r][0] * l[0] + R[r][1] * l[1] + R[r][2] * l[2];
        project(p, &pts[i][0], &pts[i][1], &depth);
    }
    int n = hull2d(pts, 8, outline);
    assert_true(n >= 4);
    double area = 0;
    for (int i = 0; i < n; ++i) area += 0.5 * cross2(outline[0], outline[i], outline[(i + 1) % n]);
    double inward = area > 0 ? 1.0 : -1.0; /* the outline's turning sense */
    area = fabs(area);
    /* Pixel centres more than 1.5 px inside the outline are drawn, more than
     * 1.5 px outside it are the background. */
    long count = 0, inside_missing = 0, outside_drawn = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            bool bg = is_background(rgb + 3 * ((size_t)y * W + x));
            double d = inward * inside_distance(outline, n, x + 0.5, y + 0.5);
            if (!bg) ++count;
            if (d > 1.5 && bg) ++inside_missing;
            if (d < -1.5 && !bg) ++outside_drawn;
        }
    free(rgb);
    print_message("box outline of %d corners, area %.1f px; %ld box pixels\n", n, area, count);
    assert_int_equal(inside_missing, 0);
    assert_int_equal(outside_drawn, 0);
    assert_true(fabs(count - area) < 0.05 * area);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(ball_lands_on_projected_pixels),
                                       cmocka_unit_test(box_lands_on_projected_pixels)};
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
