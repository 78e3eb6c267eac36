// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What ap_emu_attach() checks before it sets anything up: the spec, and the
 * image it starts from (a readable regular file within the size, which sets
 * the size when none was given). The spec's parser and its constraints are
 * the model's (emu/model.c).
 */
#include "emu/emu.h"
#include "emu/model.h"
#include "emu/emuP.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * s->image opened: a readable regular file that fits the size (which it
 * sets when none was given), the spec then validated. fd or -errno.
 */
int ap_emu_image_open(struct ap_emu_spec *s, struct ap_error *e)
{
	struct stat st;
	bool spec_size;
	int img, rc;

	img = open(s->image, O_RDONLY | O_CLOEXEC);
	if (img < 0)
		return ap_error_set(e, errno, "image %s: %s", s->image, strerror(errno));
	if (fstat(img, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(img);
		return ap_error_set(e, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
				    "image %s: not a regular file", s->image);
	}
	spec_size = s->capacity_set;
	if (!s->capacity_set) {
		s->capacity = ((uint64_t)st.st_size + 511) / 512 * 512;
		s->capacity_set = true;
	} else if ((uint64_t)st.st_size > s->capacity) {
		close(img);
		return ap_error_set(e, EFBIG, "image %s: %llu bytes do not fit in size %llu",
				    s->image, (unsigned long long)st.st_size,
				    (unsigned long long)s->capacity);
	}
	rc = ap_emu_spec_validate(s, e);
	if (rc) {
		close(img);
		if (e && !spec_size) {	/* the size is the image's: name it */
			char why[sizeof(e->msg)];

			snprintf(why, sizeof(why), "%s", e->msg);
			ap_error_set(e, rc, "image %s: %s", s->image, why);
		}
		return rc;
	}
	return img;
}

int ap_emu_spec_check(const struct ap_emu_spec *spec, struct ap_error *e)
{
	struct ap_emu_spec s = *spec;
	int fd;

	if (s.cut_peer) {
		struct ap_emu_shm *peer = ap_emu_shm_of_dev(s.cut_peer, true);

		if (!peer)
			return ap_error_set(e, ENODEV, "cut-peer %s: not an emulated drive",
					    s.cut_peer);
		munmap(peer, sizeof(*peer));
	}
	if (!s.image)
		return ap_emu_spec_validate(&s, e);
	fd = ap_emu_image_open(&s, e);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
