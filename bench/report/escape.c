#define _GNU_SOURCE
#include "escape.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_char(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;
	unsigned int cp;

	if (!s[0])
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8 */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool utf8_valid(const char *s)
{
	size_t n;

	for (; s && *s; s += n)
		if (!(n = utf8_char(s)))
			return false;
	return true;
}

void gp_path(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			fputs("''", f);
		else if (c < ' ' || c == 0x7f)	/* a raw newline would end the command */
			fprintf(f, "'.\"\\%03o\".'", c);
		else
			fputc(c, f);
	}
	fputc('\'', f);
}

void gp_text(FILE *f, const char *s)
{
	size_t n;

	fputc('\'', f);
	for (; s && *s; s += n) {
		unsigned char c = (unsigned char)*s;

		n = utf8_char(s);
		if (c == '\'')
			fputs("''", f);
		else if (c == '\n')
			fputs("'.\"\\n\".'", f);
		else if (c == '\t')
			fputs("'.\"\\t\".'", f);
		else if (!n || c < ' ' || c == 0x7f)	/* the SVG must stay valid XML */
			fprintf(f, "\\x%02X", c);
		else
			fwrite(s, 1, n, f);
		n = n ? n : 1;
	}
	fputc('\'', f);
}

void text_line(FILE *f, const char *s)
{
	size_t n;

	for (; s && *s; s += n) {
		unsigned char c = (unsigned char)*s;

		n = utf8_char(s);
		if (!n || c < ' ' || c == 0x7f)
			fprintf(f, "\\x%02X", c);
		else
			fwrite(s, 1, n, f);
		n = n ? n : 1;
	}
}

char *text_utf8(const char *s)
{
	size_t len = strlen(s), o = 0, n;
	char *t = malloc(4 * len + 1);	/* \xNN at worst */

	if (!t)
		return NULL;
	for (; *s; s += n) {
		n = utf8_char(s);
		if (n) {
			memcpy(t + o, s, n);
			o += n;
		} else {
			o += sprintf(t + o, "\\x%02X", (unsigned char)*s);
			n = 1;
		}
	}
	t[o] = '\0';
	return t;
}

json_t *json_text(const char *s)
{
	char *t;
	json_t *j;

	if (!s)
		return NULL;
	if (utf8_valid(s))
		return json_string(s);
	t = text_utf8(s);
	j = t ? json_string(t) : NULL;
	free(t);
	return j;
}
