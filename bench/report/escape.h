/*
 * Strings from outside (the guest's uname, trace text and device names,
 * recordings, shards, the command line, the environment) made inert for
 * each format the lab writes.  Text that is not valid UTF-8, and control
 * bytes a format cannot hold, come out as the four characters \xNN: the
 * byte stays visible and the file stays valid.
 */
#ifndef SLAB_ESCAPE_H
#define SLAB_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* Bytes of the valid UTF-8 character at s: 1 to 4; 0 at the end or when
 * s starts no valid (shortest-form, non-surrogate) character. */
size_t utf8_char(const char *s);
bool utf8_valid(const char *s);

/*
 * A gnuplot string expression for a file name: every byte kept.  Single
 * quotes (no backquote, macro or escape processing) with ' doubled;
 * control bytes joined in as "\ooo".
 */
void gp_path(FILE *f, const char *s);

/*
 * A gnuplot string expression for text shown in a plot: single-quoted
 * like gp_path(), a newline breaks the line, a tab stays, other control
 * bytes and invalid UTF-8 become \xNN.  NULL is ''.
 */
void gp_text(FILE *f, const char *s);

/* s on one line of a terminal table or a log: every control byte (ESC,
 * newline, tab) and invalid UTF-8 as \xNN, so a guest's name cannot move
 * the cursor, recolour or forge a line. */
void text_line(FILE *f, const char *s);

/* A malloc'd copy of s that is valid UTF-8: invalid bytes as \xNN. */
char *text_utf8(const char *s);

/* A JSON string of s, invalid UTF-8 as \xNN (json_string() would return
 * NULL and drop the field); NULL only for s NULL or out of memory. */
json_t *json_text(const char *s);

#endif
