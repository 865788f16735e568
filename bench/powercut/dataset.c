/* The power-cut dataset: what is written before the cut, and its manifest. */
#include "powercut.h"

#include <stdio.h>
#include <string.h>

#define FIO_BYTES (8ULL << 20)
#define APPEND_BASE (256ULL << 10)
#define KIB 1024ULL
#define MIB (1024ULL * 1024)

static void add_file(struct pc_record *r, const char *path, const char *kind,
		     uint64_t seed, uint64_t size, uint64_t durable)
{
	struct pc_file *f = &r->files[r->n_files++];

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->kind = kind;
	f->seed = seed;
	f->size = size;
	f->durable = durable;
	f->v = FV_NOT_JUDGED;
}

/* Varied new files, an append to a durable file, a rename, a new
 * directory, fio's own verifiable file, and one fsync'd control file. */
void pc_plan(const struct pc_opts *o, int index, struct pc_record *r)
{
	uint64_t s = ((uint64_t)o->seed << 32) ^ ((uint64_t)index << 8);

	r->n_files = 0;
	if (o->inflight) {
		/*
		 * One file overwritten in place, whose blocks and metadata are
		 * on disk before: what a cut loses is then exactly the pages
		 * not written back, with no new file lost for want of a journal
		 * commit while its data was written.
		 */
		add_file(r, "pc/big.bin", "overwrite", s + 4, o->big_bytes, 0);
		add_file(r, "pc/control.bin", "control", s + 8, 1 * MIB, 1 * MIB);
		return;
	}
	add_file(r, "pc/small.bin", "new", s + 1, 4 * KIB, 0);
	add_file(r, "pc/odd.bin", "new", s + 2, 37 * KIB + 123, 0);
	add_file(r, "pc/mid.bin", "new", s + 3, 1 * MIB, 0);
	add_file(r, "pc/big.bin", "new", s + 4, o->big_bytes, 0);
	/* its first APPEND_BASE bytes are fsync'd before the cycle */
	add_file(r, "pc/append.log", "append", s + 5, APPEND_BASE + 512 * KIB, APPEND_BASE);
	add_file(r, "pc/renamed.bin", "rename", s + 6, 2 * MIB, 0);
	add_file(r, "pc/newdir/file.bin", "newdir", s + 7, 1 * MIB, 0);
	add_file(r, "pc/fio.dat", "fio", 0, FIO_BYTES, 0);
	add_file(r, "pc/control.bin", "control", s + 8, 1 * MIB, 1 * MIB);
}

#define W(h, ms, ...) hx_run(h, ms, NULL, __VA_ARGS__)

static enum verdict write_one(struct hx *h, struct pc_record *r, const struct pc_file *f)
{
	unsigned long long seed = f->seed, size = f->size;
	enum verdict v;

	if (!strcmp(f->kind, "append")) {
		r->bytes_written += size - f->durable;
		return W(h, 60000, "WRITE " HX_DATA_MNT "/%s %llu %llu %llu 0", f->path,
			 seed, (unsigned long long)f->durable,
			 size - (unsigned long long)f->durable);
	}
	r->bytes_written += size;
	/* other bytes first, synced with their metadata, then the overwrite */
	if (!strcmp(f->kind, "overwrite"))
		return (v = W(h, h->base.cmd, "RUN mkdir -p " HX_DATA_MNT "/pc")) ||
		       (v = W(h, 120000, "WRITE " HX_DATA_MNT "/%s %llu 0 %llu 1", f->path,
			      ~seed, size)) ||
		       (v = W(h, h->base.cmd, "RUN sync")) ? v :
			W(h, 120000, "WRITE " HX_DATA_MNT "/%s %llu 0 %llu 0", f->path, seed, size);
	if (!strcmp(f->kind, "rename"))
		return (v = W(h, 60000, "WRITE " HX_DATA_MNT "/pc/tmp.name %llu 0 %llu 0",
			      seed, size)) ? v :
			W(h, h->base.cmd, "RUN mv " HX_DATA_MNT "/pc/tmp.name " HX_DATA_MNT "/%s",
			  f->path);
	if (!strcmp(f->kind, "fio"))
		return W(h, 120000, "RUN " HX_FIO " --name=cut --filename=" HX_DATA_MNT "/%s"
			 " --rw=write --bs=64k --size=%llu --ioengine=psync --thread"
			 " --verify=crc32c --do_verify=0 --verify_state_save=0"
			 " --output-format=terse >/dev/null", f->path, size);
	if (!strcmp(f->kind, "newdir") &&
	    (v = W(h, h->base.cmd, "RUN mkdir -p " HX_DATA_MNT "/pc/newdir")))
		return v;
	return W(h, 120000, "WRITE " HX_DATA_MNT "/%s %llu 0 %llu %d", f->path, seed,
		 size, f->durable == f->size);
}

enum verdict pc_write_dataset(struct hx *h, struct pc_record *r)
{
	return pc_write_dataset_marked(h, r, NULL, NULL);
}

enum verdict pc_write_dataset_marked(struct hx *h, struct pc_record *r, pc_mark_fn mark,
				     void *ctx)
{
	enum verdict v;

	/* durable before the cycle: the head of the file we append to */
	for (int i = 0; i < r->n_files; i++) {
		const struct pc_file *f = &r->files[i];

		if (strcmp(f->kind, "append"))
			continue;
		if ((v = W(h, h->base.cmd, "RUN mkdir -p " HX_DATA_MNT "/pc")) ||
		    (v = W(h, h->base.cmd, "WRITE " HX_DATA_MNT "/%s %llu 0 %llu 1",
			   f->path, (unsigned long long)f->seed,
			   (unsigned long long)f->durable)) ||
		    (v = W(h, h->base.cmd, "RUN sync")))
			return v;
	}
	for (int i = 0; i < r->n_files; i++) {
		if (mark)
			mark(ctx, i, false);
		if ((v = write_one(h, r, &r->files[i])))
			return v;
		if (mark)
			mark(ctx, i, true);
	}
	return VERDICT_OK;
}
