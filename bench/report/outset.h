/*
 * A results set (latency.json, .csv, .svg, .png): written into a staging
 * directory beside the results, and renamed into place only when every
 * file of it is whole, so a reader never pairs a new JSON with an old plot.
 * The staging directory carries an owner record (outdir.h): a later run
 * sweeps it if this one is killed.
 */
#ifndef SLAB_OUTSET_H
#define SLAB_OUTSET_H

#define OUTSET_MAX 8

struct outset {
	char *dir;
	char *stage;
	char *path;			/* outset_path()'s last answer */
	const char *names[OUTSET_MAX];
	int n, h_dir, h_mark, h_files[OUTSET_MAX];
};

/* 0, or -1 after one line. */
int outset_begin(struct outset *s, const char *dir);
/* Where the set's file name is to be written, in the staging directory;
 * valid until the next call.  NULL without memory. */
const char *outset_path(struct outset *s, const char *name);
/*
 * bad: how many writes failed.  With none, every file is renamed over its
 * name in dir, unless some name there is not a regular file; otherwise no
 * earlier file is touched.  0 if the whole set is in place, -1 after one
 * line.  Frees what outset_begin() took, either way.
 */
int outset_commit(struct outset *s, int bad);

#endif
