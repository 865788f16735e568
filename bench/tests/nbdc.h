/*
 * A tiny NBD client for the offline drive tests: fixed newstyle handshake
 * with NBD_OPT_EXPORT_NAME, simple replies, one request at a time.  It
 * sends exactly what a test asks for: no flush on close, unlike qemu-io,
 * so an unflushed write stays unflushed.
 */
#ifndef NBDC_H
#define NBDC_H

#include <stdbool.h>
#include <stdint.h>

/* A connected fd, or -1; *size gets the export's size. */
int nbdc_open(const char *sock, uint64_t *size);
/* 0, the server's NBD error (positive), or -1 on I/O failure. */
int nbdc_write(int fd, uint64_t off, const void *buf, uint32_t len, bool fua);
int nbdc_read(int fd, uint64_t off, void *buf, uint32_t len);
int nbdc_flush(int fd);
/* NBD_CMD_DISC, then close. */
void nbdc_close(int fd);

#endif
