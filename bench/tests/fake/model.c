/*
 * The fake guest's data disk: a file is a pattern stream from offset 0 (as
 * every file the lab writes is), with the size the page cache holds and
 * the size that is durable.  Durable state is kept in ".fakeqemu-<disk>", so a
 * SIGKILL (the power cut) loses exactly what was never made durable, and
 * the next boot sees the rest.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

#define MAX_FILES 64

static struct file {
	char path[256];
	bool is_dir;
	uint64_t seed;
	long long mem, disk;	/* sizes; -1: absent */
} files[MAX_FILES];
static int n_files;
static char state[700];
static bool cut;		/* this disk went through a power cut */

static struct file *find(const char *path)
{
	for (int i = 0; i < n_files; i++)
		if (!strcmp(files[i].path, path))
			return &files[i];
	return NULL;
}

static struct file *get(const char *path)
{
	struct file *f = find(path);

	if (!f && n_files < MAX_FILES) {
		f = &files[n_files++];
		snprintf(f->path, sizeof(f->path), "%s", path);
		f->mem = f->disk = -1;
	}
	return f;
}

static void save(void)
{
	char tmp[720];
	FILE *f;

	if (!state[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", state);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "booted\n");
	for (int i = 0; i < n_files; i++)
		if (files[i].disk >= 0)
			fprintf(f, "%c %llu %lld %s\n", files[i].is_dir ? 'd' : 'f',
				(unsigned long long)files[i].seed, files[i].disk,
				files[i].path);
	fclose(f);
	rename(tmp, state);
}

void model_load(const char *disk)
{
	char line[400], path[256], kind;
	const char *slash;
	unsigned long long seed;
	long long size;
	FILE *f;

	if (!disk || !*disk)
		return;
	/* beside the image, under a name no test of the lab's files matches */
	slash = strrchr(disk, '/');
	snprintf(state, sizeof(state), "%.*s.fakeqemu-%s", slash ? (int)(slash - disk + 1) : 0,
		 disk, slash ? slash + 1 : disk);
	f = fopen(state, "r");
	/* a disk that was booted before and never shut down cleanly */
	cut = f != NULL;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%c %llu %lld %255s", &kind, &seed, &size, path) == 4) {
			struct file *x = get(path);

			x->is_dir = kind == 'd';
			x->seed = seed;
			x->mem = x->disk = size;
		}
	if (f)
		fclose(f);
	save();
}

bool model_was_cut(void)
{
	return cut;
}

void model_write(const char *path, uint64_t seed, uint64_t off, uint64_t size,
		 bool durable)
{
	struct file *f = get(path);

	if (!f)
		return;
	f->seed = seed;
	if (f->mem < (long long)(off + size))
		f->mem = off + size;
	if (durable) {
		f->disk = f->mem;
		save();
	}
}

void model_rename(const char *from, const char *to)
{
	struct file *f = find(from), *t;

	if (!f)
		return;
	t = get(to);
	t->seed = f->seed;
	t->mem = f->mem;
	f->mem = -1;
}

void model_mkdir(const char *path)
{
	struct file *f = get(path);

	f->is_dir = true;
	f->mem = 0;
}

void model_remove(const char *path)
{
	struct file *f = find(path);

	if (f)
		f->mem = -1;
}

void model_sync(void)
{
	for (int i = 0; i < n_files; i++)
		files[i].disk = files[i].mem;
	save();
}

uint64_t model_dirty_bytes(void)
{
	uint64_t n = 0;

	for (int i = 0; i < n_files; i++)
		if (files[i].mem > files[i].disk)
			n += files[i].mem - (files[i].disk > 0 ? files[i].disk : 0);
	return n;
}

long long model_size(const char *path)
{
	struct file *f = find(path);

	return f ? f->mem : -1;
}

static bool flagged(const char *flag, const char *path)
{
	const char *v = fk_arg(flag);
	size_t n = v ? strcspn(v, ",") : 0;

	return v && cut && strlen(path) >= n && !strncmp(path + strlen(path) - n, v, n);
}

int model_verify(const char *path, uint64_t size, char *out, size_t n)
{
	struct file *f = find(path);
	long long have = f ? f->mem : -1;
	uint64_t good;

	if (flagged("euclean", path)) {	/* as f2fs answers a damaged inode */
		snprintf(out, n, "type=none size=0 good=0 first_bad=0");
		return 117;
	}
	if (have < 0) {
		snprintf(out, n, "type=none size=0 good=0 first_bad=0");
		return 0;
	}
	if (flagged("symlink", path)) {
		snprintf(out, n, "type=lnk size=20 good=0 first_bad=0");
		return 0;
	}
	if (flagged("extend", path))
		have += 64;
	good = (uint64_t)have < size ? (uint64_t)have : size;
	snprintf(out, n, "type=%s size=%lld good=%llu first_bad=%llu",
		 f->is_dir ? "dir" : "reg", have, (unsigned long long)good,
		 (unsigned long long)good);
	return 0;
}

int model_list(const char *dir, void (*fn)(const char *type, const char *rel))
{
	size_t n = strlen(dir);
	const char *extra = cut ? fk_arg("leftover") : NULL;
	char buf[256];

	fn("dir", "lost+found");
	for (int i = 0; i < n_files; i++)
		if (files[i].mem >= 0 && !strncmp(files[i].path, dir, n) &&
		    files[i].path[n] == '/')
			fn(files[i].is_dir ? "dir" : "reg", files[i].path + n + 1);
	if (extra) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(extra, ","), extra);
		fn("reg", buf);
	}
	return cut && fk_has("list-euclean") ? 117 : 0;
}
