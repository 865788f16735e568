#include "nbdc.h"

#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent_proto.h"

#define NBD_MAGIC 0x4e42444d41474943ULL		/* "NBDMAGIC" */
#define NBD_OPT_MAGIC 0x49484156454f5054ULL	/* "IHAVEOPT" */
#define NBD_REQ_MAGIC 0x25609513U
#define NBD_REPLY_MAGIC 0x67446698U
#define NBD_FLAG_FIXED_NEWSTYLE 1
#define NBD_FLAG_NO_ZEROES 2
#define NBD_OPT_EXPORT_NAME 1
#define NBD_CMD_READ 0
#define NBD_CMD_WRITE 1
#define NBD_CMD_DISC 2
#define NBD_CMD_FLUSH 3
#define NBD_CMD_FLAG_FUA 1

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= r;
	}
	return 0;
}

int nbdc_open(const char *sock, uint64_t *size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct { uint64_t magic, opt_magic; uint16_t flags; } __attribute__((packed)) hello;
	struct { uint64_t magic; uint32_t opt, len; } __attribute__((packed)) opt;
	struct { uint64_t size; uint16_t flags; } __attribute__((packed)) exp;
	char zeroes[124];
	uint32_t cflags;
	uint16_t hflags;
	int fd;

	if (strlen(sock) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    read_full(fd, &hello, sizeof(hello)) ||
	    be64toh(hello.magic) != NBD_MAGIC || be64toh(hello.opt_magic) != NBD_OPT_MAGIC)
		goto fail;
	hflags = be16toh(hello.flags);
	cflags = htobe32(NBD_FLAG_FIXED_NEWSTYLE | (hflags & NBD_FLAG_NO_ZEROES));
	opt.magic = htobe64(NBD_OPT_MAGIC);
	opt.opt = htobe32(NBD_OPT_EXPORT_NAME);
	opt.len = 0;	/* the default export "" */
	if (agent_write_all(fd, &cflags, sizeof(cflags)) ||
	    agent_write_all(fd, &opt, sizeof(opt)) || read_full(fd, &exp, sizeof(exp)))
		goto fail;
	if (!(hflags & NBD_FLAG_NO_ZEROES) && read_full(fd, zeroes, sizeof(zeroes)))
		goto fail;
	if (size)
		*size = be64toh(exp.size);
	return fd;
fail:
	close(fd);
	return -1;
}

static int request(int fd, uint16_t type, uint16_t flags, uint64_t off, uint32_t len,
		   const void *out, void *in)
{
	static uint64_t handle;
	struct { uint32_t magic; uint16_t flags, type; uint64_t handle, off; uint32_t len; }
		__attribute__((packed)) req = {
		htobe32(NBD_REQ_MAGIC), htobe16(flags), htobe16(type),
		htobe64(++handle), htobe64(off), htobe32(len) };
	struct { uint32_t magic, error; uint64_t handle; } __attribute__((packed)) rep;

	if (agent_write_all(fd, &req, sizeof(req)) ||
	    (out && agent_write_all(fd, out, len)))
		return -1;
	if (type == NBD_CMD_DISC)
		return 0;	/* no reply */
	if (read_full(fd, &rep, sizeof(rep)) || be32toh(rep.magic) != NBD_REPLY_MAGIC ||
	    be64toh(rep.handle) != handle)
		return -1;
	if (rep.error)
		return (int)be32toh(rep.error);
	return in && read_full(fd, in, len) ? -1 : 0;
}

int nbdc_write(int fd, uint64_t off, const void *buf, uint32_t len, bool fua)
{
	return request(fd, NBD_CMD_WRITE, fua ? NBD_CMD_FLAG_FUA : 0, off, len, buf, NULL);
}

int nbdc_read(int fd, uint64_t off, void *buf, uint32_t len)
{
	return request(fd, NBD_CMD_READ, 0, off, len, NULL, buf);
}

int nbdc_flush(int fd)
{
	return request(fd, NBD_CMD_FLUSH, 0, 0, 0, NULL, NULL);
}

void nbdc_close(int fd)
{
	if (fd < 0)
		return;
	request(fd, NBD_CMD_DISC, 0, 0, 0, NULL, NULL);
	close(fd);
}
