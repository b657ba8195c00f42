/* units: sizes for people, one system (units.h). */
#include "autoconf.h"

#include <stdio.h>

#include "units.h"

char *
size_text(uint64_t n, char *buf)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double	v = (double)n;
	int	u = -1;

	if (n < 1024) {
		snprintf(buf, SIZE_TEXT_MAX, "%llu B", (unsigned long long)n);
		return buf;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, SIZE_TEXT_MAX, "%.1f %s", v, unit[u]);
	return buf;
}
