/*
 * units: sizes for people, in one system everywhere (binary: B, KiB, MiB,
 * GiB, TiB, as the limits are given): "512 B", "15.6 KiB", "3.0 MiB".
 *
 *	char s[SIZE_TEXT_MAX];
 *	size_text(bytes, s);
 */
#ifndef BWGATE_UNITS_H
#define BWGATE_UNITS_H

#include <stdint.h>

#define SIZE_TEXT_MAX	32

/* Write n as text to buf (SIZE_TEXT_MAX bytes); returns buf. */
char	*size_text(uint64_t n, char *buf);

#endif
