/*
 * A recording proves it is whole before anything is judged: meta.json
 * keeps the size and SHA-256 of base.img and write.log (and the log's
 * whole entries), and its own SHA-256 over its bytes with that digest
 * zeroed.  A copy to a worker that stopped part-way, or a flipped byte,
 * is then refused instead of judged into a wrong verdict.
 */
#ifndef SLAB_RECDIGEST_H
#define SLAB_RECDIGEST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define CS_META_DIGEST_KEY "meta_sha256"
/* The file's largest size: meta.json is a few KiB. */
#define CS_META_MAX (1 << 20)

/* SHA-256 of a regular file's bytes, as 64 hex digits; its size in *bytes.
 * 0, or -1 with why. */
int cs_sha256_file(const char *path, uint64_t *bytes, char hex[65], char *why, size_t n);

/* {"base.img": {bytes, sha256}, "write.log": {bytes, sha256, entries}}
 * of the recording in dir; NULL with why. */
json_t *cs_rec_files(const char *dir, char *why, size_t n);

/* The files of dir against meta.json's "recorded_files", the log's size
 * against log_bytes_at.end: 0 (*entries: the log's whole entries then),
 * or -1 with why naming the file and what differs. */
int cs_rec_verify(json_t *files, const char *dir, uint64_t at_end, int *entries, char *why,
		  size_t n);

/* meta.json's text with CS_META_DIGEST_KEY's 64 zeros replaced by the
 * digest of the whole text: 0, or -1. */
int cs_meta_seal(char *text);
/* Whether text (len bytes) carries its own digest and it matches:
 * 0, or -1 with why. */
int cs_meta_unseal(const char *text, size_t len, char *why, size_t n);

#endif
