/* The world's state hash (include/carom/checkpoint.h): one number that two
 * runs share only if every body's state is the same to the bit. */
#include <string.h>

#include "carom/checkpoint.h"

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

/* Each double as its IEEE-754 bit pattern, little-endian whatever the
 * machine (as checkpoints write numbers), so a hash means the same on any
 * host. */
static unsigned char *put_f64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(u >> (8 * i));
    return p + 8;
}

uint64_t cr_world_state_hash(const cr_world *w)
{
    uint64_t h = FNV_OFFSET;
    for (uint32_t i = 0; i < cr_world_body_capacity(w); ++i) {
        cr_body_state s;
        if (cr_body_get_state(w, cr_world_body_at(w, i), &s) != CR_OK) continue; /* a free slot */
        const double v[13] = {s.position.x,         s.position.y,         s.position.z,         s.velocity.x,
                              s.velocity.y,         s.velocity.z,         s.angular_velocity.x, s.angular_velocity.y,
                              s.angular_velocity.z, s.orientation.w,      s.orientation.x,      s.orientation.y,
                              s.orientation.z};
        unsigned char bytes[sizeof v], *p = bytes;
        for (int k = 0; k < 13; ++k) p = put_f64(p, v[k]);
        /* one FNV-1a per body, folded in as one more FNV-1a step: the hash
         * tests/golden/hashes.txt has recorded since it began */
        h = (h ^ cr_fnv1a64(bytes, sizeof bytes)) * FNV_PRIME;
    }
    return h;
}
