/* A recording's sizes and digests: written with meta.json, checked
 * before the recording is used (recdigest.h). */
#define _GNU_SOURCE
#include "recdigest.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logfmt.h"

static const char *const rec_files[] = { "base.img", "write.log" };
#define N_REC_FILES (sizeof(rec_files) / sizeof(rec_files[0]))
#define SEAL_AT "\"" CS_META_DIGEST_KEY "\": \""

static void hex_of(const unsigned char *md, char hex[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

int cs_sha256_file(const char *path, uint64_t *bytes, char hex[65], char *why, size_t n)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE], *buf = malloc(1 << 20);
	unsigned int mdlen = 0;
	struct stat st;
	ssize_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc = -1;

	*bytes = 0;
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "%s: not a regular file (%s)", path, kind_of(st.st_mode));
		goto out;
	}
	if (!ctx || !buf || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		snprintf(why, n, "%s: cannot compute SHA-256 (out of memory)", path);
		goto out;
	}
	while ((got = read(fd, buf, 1 << 20)) > 0 || (got < 0 && errno == EINTR)) {
		if (got < 0)
			continue;
		*bytes += got;
		EVP_DigestUpdate(ctx, buf, got);
	}
	if (got < 0 || !EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32) {
		snprintf(why, n, "%s: %s", path, got < 0 ? strerror(errno) : "SHA-256 failed");
		goto out;
	}
	hex_of(md, hex);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* dir/name, allocated; NULL with why. */
static char *join(const char *dir, const char *name, char *why, size_t n)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	return p;
}

json_t *cs_rec_files(const char *dir, char *why, size_t n)
{
	json_t *all = json_object();

	for (size_t i = 0; all && i < N_REC_FILES; i++) {
		char *p = join(dir, rec_files[i], why, n), hex[65];
		uint64_t bytes;
		json_t *f = NULL;

		if (p && !cs_sha256_file(p, &bytes, hex, why, n))
			f = json_pack("{s:I, s:s}", "bytes", (json_int_t)bytes, "sha256", hex);
		if (f && !strcmp(rec_files[i], "write.log")) {
			struct lw_log l;

			if (lw_open(&l, p, 512, why, n)) {
				json_decref(f);
				f = NULL;
			} else {
				json_object_set_new(f, "entries", json_integer(l.n));
				lw_close(&l);
			}
		}
		free(p);
		if (!f) {
			json_decref(all);
			return NULL;
		}
		json_object_set_new(all, rec_files[i], f);
	}
	return all;
}

int cs_rec_verify(json_t *files, const char *dir, uint64_t at_end, int *entries, char *why,
		  size_t n)
{
	for (size_t i = 0; i < N_REC_FILES; i++) {
		json_t *f = json_object_get(files, rec_files[i]);
		json_t *jb = json_object_get(f, "bytes"), *je = json_object_get(f, "entries");
		const char *want = json_string_value(json_object_get(f, "sha256"));
		bool is_log = !strcmp(rec_files[i], "write.log");
		char *p = join(dir, rec_files[i], why, n), hex[65];
		uint64_t bytes;
		int rc = -1;

		if (!p)
			return -1;
		if (!json_is_integer(jb) || json_integer_value(jb) < 0 || !want ||
		    strlen(want) != 64 || strspn(want, "0123456789abcdef") != 64 ||
		    (is_log && (!json_is_integer(je) || json_integer_value(je) < 0 ||
				json_integer_value(je) > INT32_MAX)))
			snprintf(why, n, "%s: meta.json has no size, SHA-256 or entry count for it",
				 p);
		else if (is_log && (uint64_t)json_integer_value(jb) != at_end)
			snprintf(why, n, "%s: meta.json says %lld bytes, but its log_bytes_at.end is"
				 " %llu (meta.json is not the recording's)", p,
				 (long long)json_integer_value(jb), (unsigned long long)at_end);
		else if (cs_sha256_file(p, &bytes, hex, why, n))
			;	/* why says: missing, a directory, unreadable */
		else if (bytes != (uint64_t)json_integer_value(jb))
			snprintf(why, n, "%s: %llu bytes, the recording has %lld (cut short or"
				 " damaged: copy it again, or record again)", p,
				 (unsigned long long)bytes, (long long)json_integer_value(jb));
		else if (strcmp(hex, want))
			snprintf(why, n, "%s: SHA-256 %.16s... differs from the recording's %.16s..."
				 " (damaged: copy it again, or record again)", p, hex, want);
		else
			rc = 0;
		free(p);
		if (rc)
			return -1;
		if (is_log)
			*entries = json_integer_value(je);
	}
	return 0;
}

static int digest_buf(const void *buf, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -1;
	hex_of(md, hex);
	return 0;
}

int cs_meta_seal(char *text)
{
	char *at = strstr(text, SEAL_AT), hex[65];

	if (!at)
		return -1;
	at += strlen(SEAL_AT);
	if (strspn(at, "0") < 64 || digest_buf(text, strlen(text), hex))
		return -1;
	memcpy(at, hex, 64);
	return 0;
}

int cs_meta_unseal(const char *text, size_t len, char *why, size_t n)
{
	/* the key can only be the key: a string value's quotes are escaped */
	const char *at = memmem(text, len, SEAL_AT, strlen(SEAL_AT));
	char *copy, hex[65], had[65];
	size_t off;
	int rc;

	if (!at) {
		snprintf(why, n, "no \"%s\" (the recording predates whole-file digests:"
			 " record it again)", CS_META_DIGEST_KEY);
		return -1;
	}
	off = at - text + strlen(SEAL_AT);
	if (off + 65 > len || text[off + 64] != '"' ||
	    strspn(text + off, "0123456789abcdef") < 64) {
		snprintf(why, n, "\"%s\" is not 64 hex digits", CS_META_DIGEST_KEY);
		return -1;
	}
	copy = malloc(len + 1);
	if (!copy) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	memcpy(had, text + off, 64);
	had[64] = '\0';
	memset(copy + off, '0', 64);
	rc = memchr(text, '\0', len) || digest_buf(copy, len, hex);
	free(copy);
	if (rc || strcmp(hex, had)) {
		snprintf(why, n, "its SHA-256 %.16s... differs from the %.16s... it was written"
			 " with (edited or damaged: copy it again, or record again)", rc ? "?" : hex,
			 had);
		return -1;
	}
	return 0;
}
