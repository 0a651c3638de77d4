/* Text a person sees (a report on a terminal or in a file, a message, a TUI cell, an SVG
 * label) never carries a control character from its input: a kernel name holding ESC,
 * an OSC sequence or BEL could repaint the terminal or retitle it. Each is shown as an
 * escape instead: \xHH for C0 controls and DEL (\n and \r in messages), \u00HH for the
 * C1 controls U+0080..U+009F, \xHH for a lone byte 0x80..0x9F (an 8-bit C1 control).
 * Tabs, newlines where kept, and well-formed UTF-8 pass unchanged, so text without
 * controls is byte for byte as before. */
#ifndef PRISM_ESC_H
#define PRISM_ESC_H

#include <stdio.h>

#include "util.h"

enum { ESC_KEEP_NL = 1 }; /* newlines pass (a report's lines); else shown as \n */

/* 1 when s[0..n) holds something esc_append would escape */
int esc_needed(const char *s, size_t n, int flags);
/* s[0..n) appended to sb with its control characters escaped */
void esc_append(struct strbuf *sb, const char *s, size_t n, int flags);
/* s as it is shown: s itself when nothing in it needs escaping, else its escaped copy in
 * tmp (which the caller frees with sb_free; tmp starts empty) */
const char *esc_view(const char *s, struct strbuf *tmp, int flags);
/* A stream writing to `to` what is written to it, escaped (newlines kept). Closing it
 * flushes `to` (not closed) and fails when any write to `to` failed: a full disk, a
 * closed pipe. Falls back to `to` itself when no stream can be made. */
FILE *esc_stream(FILE *to);
/* Text already escaped as esc_stream escapes it (esc_append with ESC_KEEP_NL, ending on a
 * whole character), written on after what f holds: to the stream under f when f is an
 * esc_stream (not scanned a second time), else to f. Returns 0, or -1 when a write
 * failed (f's close then fails too). */
int esc_put_escaped(FILE *f, const char *buf, size_t n);
/* 1 when f is a stream esc_stream made (and not closed yet) */
int esc_is_stream(FILE *f);

#endif
