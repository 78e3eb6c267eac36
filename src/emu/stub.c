// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive without the emulator (configure --disable-emulator):
 * the spec is still checked, everything else answers ENOTSUP, and nothing
 * is ever an emulated drive. Built instead of attach.c, loop.c, spec.c,
 * workdir.c and server.c (src/emu/Makemodule.am).
 */
#include "emu/emu.h"
#include "emu/model.h"
#include "lib/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

int ap_emu_spec_check(const struct ap_emu_spec *s, struct ap_error *e)
{
	return ap_emu_spec_validate(s, e);
}

int ap_emu_attach(const struct ap_emu_spec *s, struct ap_emu **out, struct ap_error *e)
{
	(void)s;
	*out = NULL;
	return ap_error_set(e, ENOTSUP, "the emulated drive is not built in (configure --disable-emulator)");
}

const char *ap_emu_device(const struct ap_emu *emu)
{
	(void)emu;
	return NULL;
}

int ap_emu_detach(struct ap_emu *emu, struct ap_error *e)
{
	(void)emu;
	return ap_error_set(e, ENOTSUP, "the emulated drive is not built in");
}

int ap_emu_detach_device(const char *dev, struct ap_error *e)
{
	(void)dev;
	return ap_error_set(e, ENOTSUP, "the emulated drive is not built in");
}

bool ap_emu_is_emulated(const char *dev)
{
	(void)dev;
	return false;
}

int ap_emu_counters_read(const char *dev, struct ap_emu_counters *c)
{
	(void)dev;
	(void)c;
	return -ENOTSUP;
}

int ap_emu_counters_reset(const char *dev)
{
	(void)dev;
	return -ENOTSUP;
}

int ap_emu_spec_of(const char *dev, struct ap_emu_spec *s)
{
	(void)dev;
	(void)s;
	return -ENOTSUP;
}

int ap_emu_forget(struct ap_emu *emu, struct ap_error *e)
{
	(void)emu;
	return ap_error_set(e, ENOTSUP, "the emulated drive is not built in");
}

int ap_emu_detach_entry(const char *mnt, struct ap_error *e)
{
	(void)mnt;
	return ap_error_set(e, ENOTSUP, "the emulated drive is not built in");
}


int ap_emu_write_cache(const char *dev, bool *on)
{
	(void)dev;
	(void)on;
	return -ENOTSUP;
}

int ap_emu_set_write_cache(const char *dev, bool on)
{
	(void)dev;
	(void)on;
	return -ENOTSUP;
}

int ap_emu_power(const char *dev, bool on, struct ap_error *e)
{
	(void)dev;
	(void)on;
	return ap_error_set(e, ENOTSUP, "the emulated drive is not built in");
}

int ap_emu_arm_power_cut(const char *dev, uint64_t n)
{
	(void)dev;
	(void)n;
	return -ENOTSUP;
}

int ap_emu_set_host_busy(const char *dev, uint64_t ns)
{
	(void)dev;
	(void)ns;
	return -ENOTSUP;
}
