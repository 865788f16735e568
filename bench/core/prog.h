/* The running program's name, for every message of every layer. */
#ifndef SLAB_PROG_H
#define SLAB_PROG_H

/* "suspend-lab", "power-cut", ...: set by the program's option parser */
extern const char *cli_prog;

#endif
