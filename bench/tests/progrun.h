/* Our programs run as a user runs them, for the offline tests. */
#ifndef SLAB_PROGRUN_H
#define SLAB_PROGRUN_H

#include <sys/types.h>

/* stderr and stdout of the last progrun() */
extern char progrun_err[8192], progrun_out[8192];

/* The programs are beside argv0. */
void progrun_init(const char *argv0);
/* Runs a program of ours with args (NULL-terminated); its exit status
 * (128 + signal if killed), stderr in progrun_err.  With sig_after_ms,
 * sends sig then. */
int progrun(const char *name, char *const args[], int sig_after_ms, int sig);
int progrun_lines(const char *s);
/* The same in the background, output discarded: its pid. */
pid_t progrun_spawn(const char *name, char *const args[]);

#endif
