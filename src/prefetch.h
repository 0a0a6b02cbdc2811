/* A hint to the processor to fetch the cache line at p (for writing when
 * w is 1) ahead of its use: for loads the hardware cannot guess (addresses
 * from a list, or several interleaved streams). Nothing on compilers
 * without it; never changes a result. */
#ifndef CAROM_PREFETCH_H
#define CAROM_PREFETCH_H

#if defined(__GNUC__) || defined(__clang__)
#define CR_PREFETCH(p, w) __builtin_prefetch((p), (w))
#else
#define CR_PREFETCH(p, w) ((void)(p))
#endif

#endif
