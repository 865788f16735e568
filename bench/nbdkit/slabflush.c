/*
 * nbdkit-slabflush-filter: the flush side of the lab's drive model, which
 * Debian's nbdkit 1.32.5 filters lack (its delay filter has no flush
 * delay).  flush-delay-ms=N holds every flush N ms before passing it on
 * (ahead of the write-back, so a cut during it loses the cache);
 * drop-flush=true is a test-only mode: flushes succeed without reaching
 * the cache below, and FUA is stripped, so nothing is ever written back.
 * Filters run only on the nbdkit they were built for: make rebuilds this
 * when nbdkit-plugin-dev changes.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <nbdkit-filter.h>

static unsigned delay_ms;
static int drop;

static int slabflush_config(nbdkit_next_config *next, nbdkit_backend *nxdata,
			    const char *key, const char *value)
{
	if (!strcmp(key, "flush-delay-ms"))
		return nbdkit_parse_unsigned(key, value, &delay_ms);
	if (!strcmp(key, "drop-flush")) {
		drop = nbdkit_parse_bool(value);
		return drop < 0 ? -1 : 0;
	}
	return next(nxdata, key, value);
}

static int slabflush_flush(nbdkit_next *next, void *handle, uint32_t flags, int *err)
{
	(void)handle;
	if (drop)
		return 0;
	if (delay_ms && nbdkit_nanosleep(delay_ms / 1000, delay_ms % 1000 * 1000000) == -1) {
		*err = errno;
		return -1;
	}
	return next->flush(next, flags, err);
}

static int slabflush_pwrite(nbdkit_next *next, void *handle, const void *buf,
			    uint32_t count, uint64_t offset, uint32_t flags, int *err)
{
	(void)handle;
	if (drop)
		flags &= ~NBDKIT_FLAG_FUA;
	return next->pwrite(next, buf, count, offset, flags, err);
}

static int slabflush_zero(nbdkit_next *next, void *handle, uint32_t count,
			  uint64_t offset, uint32_t flags, int *err)
{
	(void)handle;
	if (drop)
		flags &= ~NBDKIT_FLAG_FUA;
	return next->zero(next, count, offset, flags, err);
}

static struct nbdkit_filter filter = {
	.name = "slabflush",
	.longname = "suspend-sync lab flush latency",
	.config = slabflush_config,
	.config_help = "flush-delay-ms=<N>  delay of each flush\n"
		       "drop-flush=<BOOL>   test only: flushes never reach the cache",
	.flush = slabflush_flush,
	.pwrite = slabflush_pwrite,
	.zero = slabflush_zero,
};

NBDKIT_REGISTER_FILTER(filter)
