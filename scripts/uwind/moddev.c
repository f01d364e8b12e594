// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The module's device, /dev/uwind (kernel/uwind_uapi.h): what `uwind
 * status`, `uwind sframe --install` and `uwind agent` use to talk to the
 * loaded module, and never debugfs, which a kernel locked down (as Secure
 * Boot machines run) refuses to open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "uwind.h"
#include "../../kernel/uwind_uapi.h"

/* UWIND_DEVICE, for tests: a file read in place of the device. */
const char *mod_dev_path(void)
{
	const char *p = getenv("UWIND_DEVICE");

	return p && *p ? p : "/dev/" UWIND_DEV_NAME;
}

int mod_dev_open(int flags)
{
	return open(mod_dev_path(), flags | O_CLOEXEC);
}

char *mod_dev_status(const char *path, size_t *len)
{
	size_t n = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t r;
	int fd = open(path ? path : mod_dev_path(), O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap + 1);
			if (!nb)
				break;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!buf || strncmp(buf, "uwind ", 6)) {
		free(buf);
		errno = EPROTO;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *mod_dev_section(const char *text, const char *name)
{
	char head[64];
	const char *p, *end;
	size_t hl;
	char *out;

	hl = (size_t)snprintf(head, sizeof(head), "\n[%s]\n", name);
	p = strstr(text, head);
	if (!p)
		return NULL;
	p += hl;
	for (end = p; *end; end = strchr(end, '\n') + 1) {
		if (*end == '[')
			break;
		if (!strchr(end, '\n')) {
			end += strlen(end);
			break;
		}
	}
	out = malloc((size_t)(end - p) + 1);
	if (out) {
		memcpy(out, p, (size_t)(end - p));
		out[end - p] = '\0';
	}
	return out;
}

int mod_dev_rescan(void)
{
	int fd = mod_dev_open(O_RDONLY), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, UWIND_IOC_RESCAN);
	close(fd);
	return ret;
}
