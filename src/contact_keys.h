/* The warm start's sort keys of rigid contacts (src/rigid_contacts.c) and
 * their sort. Internal. */
#ifndef CAROM_CONTACT_KEYS_H
#define CAROM_CONTACT_KEYS_H

#include <stdint.h>

/* pair: a << 33 | is_plane << 32 | b (body a, then planes after bodies,
 * then b); rank: feature << 32 | the contact's index, so that no two keys
 * of one list are equal. */
typedef struct cr_contact_key {
    uint64_t pair, rank;
} cr_contact_key;

int cr_contact_key_cmp(const void *x, const void *y);

/* Sorts keys[0..n) by (pair, rank), each key's body a (pair >> 33) below
 * buckets: a counting sort on a (stable, into tmp[n] and back), then each
 * body's keys by the whole key (insertion sort: a body's few contacts come
 * nearly in order; qsort past CR_CONTACT_KEYS_INSERTION of them). The keys
 * are unique, so the order is qsort's with cr_contact_key_cmp, bit for bit
 * (tests/test_contact_keys.c). count: buckets + 1 counters; when n > 0,
 * count[a] is then where body a's keys end and a + 1's begin (a's begin at
 * count[a - 1], or 0), the warm start's look-up's range for a. */
void cr_contact_keys_sort(cr_contact_key *keys, cr_contact_key *tmp, uint32_t *count, uint32_t n, uint32_t buckets);

/* The first of keys[0..n) (sorted, rising) at or after key; n if none. A
 * binary search: the sphere path's warm start walk (sphere_contacts.c)
 * and the jointed pairs' look-up (rigid_contacts.c). */
static inline uint32_t cr_keys_first_at(const uint64_t *keys, uint32_t n, uint64_t key)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

#endif
