/*
 * --out belongs to one run at a time: a lock held for the run's life, so a
 * second run with the same --out is refused instead of sharing (and
 * formatting) the first one's data image.  Holding it, a run sweeps what a
 * killed run left there, and only that: each temporary the lab makes has an
 * owner record beside it (".slab-owner.NAME": the lab's magic line, the
 * maker's pid and start time, and NAME), and a later run removes NAME only
 * when that record says its maker is gone.  A user's file, whatever its
 * name, has no such record and is never touched.
 */
#ifndef SLAB_OUTDIR_H
#define SLAB_OUTDIR_H

#include <stddef.h>

/* The longest --out: what the lab builds under it (NAME/logs/TAG/
 * qemu.stderr, crash-rec/cycle-N/write.log) fits the buffers it goes in. */
#define OUTDIR_MAX 400

/* The names (NULL-terminated) the program writes its results to in --out;
 * outdir_check() refuses a --out where one of them cannot be replaced. */
void outdir_expect(const char *const *names);
/* --out's length: 0, or 2 after one line naming the limit.  No side
 * effects. */
int outdir_check_len(const char *dir);
/*
 * dir (what: "--out", or the part of --fs all it is) is a writable
 * directory, or one that can be made in a writable one, and no expected
 * result name in it is a directory or other non-file.  0, or 2 after one
 * line.  No side effects: called before anything is made or swept.
 */
int outdir_check(const char *dir, const char *what);
/* Locks dir (once per directory) and sweeps what dead runs left there.
 * 0, or 2 after one line naming the run that holds dir. */
int outdir_claim(const char *dir);
/* Marks path (an image in --out) as this run's temporary, swept by a later
 * run if this one is killed; *h for cleanup_forget().  0 or -1. */
int outdir_mark_temporary(const char *path, int *h);
/* The mark's name for path; "" when it does not fit n. */
void outdir_mark_name(char *buf, size_t n, const char *path);
/*
 * A new temporary file beside path, marked first (so a kill at any point
 * leaves nothing unmarked): its fd (mode 0644 less umask), its name in *tmp
 * (free() it) and its mark's cleanup handle in *h.  -1 with errno.
 */
int outdir_temp_open(const char *path, char **tmp, int *h);
/* A new private directory (0700) in dir, marked first; NULL with errno. */
char *outdir_temp_dir(const char *dir, int *h);
/* Drops the mark of tmp, once tmp is renamed or removed. */
void outdir_temp_done(const char *tmp, int h);

#endif
