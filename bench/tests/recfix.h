/*
 * Hand-made crash recordings for the offline crash-states tests: a cycle's
 * directory with write.log, base.img and a sealed meta.json, the edits a
 * test makes to them, and a judge that finds every state intact.
 */
#ifndef RECFIX_H
#define RECFIX_H

#include <stdbool.h>

#include "crash.h"

/* c zeroed for rec/cycle-<number> (rec and it made): mem, emmc, ext4,
 * sync 1, 1 MiB, seed 4, suspended, the replay matching.  Set other
 * fields before recfix_log() and recfix_seal(). */
void recfix_cycle(struct cs_cycle *c, const char *rec, int number);
/*
 * c's write.log from spec, one entry a character: 'W' writes sector
 * i % 48 (entry i, filled with 'A' + i), 'F' flushes.  The marks: 9
 * dataset files, the dataset starting after entry 1 and file k ending
 * after entry k + 2, the request after entry 12, suspended and the end
 * at the log's end.
 */
void recfix_log(struct cs_cycle *c, const char *spec);
/* base.img of 64 zeroed sectors ("base" at sector 3 if marked), then
 * meta.json, sealed. */
void recfix_seal(const struct cs_cycle *c, bool marked);

/* rec/cycle-1/meta.json with the first from replaced by to, its seal not
 * renewed: 0, or -1 if there is no from. */
int recfix_edit_meta(const char *rec, const char *from, const char *to);

/* A judge's batch that finds every state intact, the bytes filled as a
 * judge fills them: what matters is that judging runs. */
void recfix_intact_batch(void *ctx, struct cs_job *jobs, int n);
/* judge's options for rec into out, quiet, KERNEL and INITRD kernel. */
void recfix_judge_opts(struct cs_opts *o, const char *kernel, const char *out, const char *rec);

#endif
