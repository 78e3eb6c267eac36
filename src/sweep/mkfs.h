/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Making the file system of one sweep step: mkfs.ext4 (e2fsprogs) and
 * friends, spawned with an argv (posix_spawnp, never a shell), with
 * 4096-byte blocks and no discard; ext4's inode tables and journal are
 * left unzeroed and its mount told never to zero them in the background
 * (ap_mkfs_mount_data()), so that nothing but the workload touches the disk
 * afterwards.
 */
#ifndef AP_MKFS_H
#define AP_MKFS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/cancel.h"
#include "lib/util.h"

/* The file systems the sweep knows: "ext4" (default), "ext2", "xfs". */
bool ap_mkfs_is_known(const char *fs);
/* "mkfs.ext4" for "ext4"; NULL for an unknown file system. */
const char *ap_mkfs_program(const char *fs);
/* Smallest file system mkfs accepts, bytes (xfs: 300 MiB). */
unsigned long long ap_mkfs_min_size(const char *fs);

/*
 * The mount(2) data for a file system of @fs made by ap_mkfs_run(): what
 * its options require of the mount ("noinit_itable" for ext4: no
 * background thread may write during the workload), then @extra (the
 * user's --mount-opt, may be NULL), comma-separated. NULL when both are
 * empty; free() it.
 */
char *ap_mkfs_mount_data(const char *fs, const char *extra);

/*
 * What a file system of @fs is remounted with after the workload, before
 * its umount, or NULL: "nobarrier" for ext4, whose umount would otherwise
 * flush a dozen times for writes the next step's mkfs replaces.
 */
const char *ap_mkfs_umount_data(const char *fs);

/*
 * Is a file system of @fs shut down after the workload, before its umount
 * (ap_mount_shutdown(): nothing more written)? ext4: its umount would
 * commit and checkpoint the journal, synchronous writes the next step's
 * mkfs replaces.
 */
bool ap_mkfs_shut_down(const char *fs);

/*
 * Split a --mkfs-opt value on blanks and append the words to @v (count
 * @n). No quoting: each blank-separated word is one argument. 0 or -EINVAL
 * (empty value).
 */
int ap_mkfs_split_opts(const char *s, char ***v, size_t *n);
void ap_mkfs_free_opts(char **v, size_t n);

/*
 * The argv for making @fs on @dev with @extra options before the device
 * (NULL-terminated; free with ap_mkfs_free_opts(argv, SIZE_MAX)).
 * NULL for an unknown @fs.
 */
char **ap_mkfs_argv(const char *fs, const char *dev, char *const *extra, size_t nextra);

/* Is the mkfs of @fs in PATH? 0, or -ENOENT with a message naming it. */
int ap_mkfs_check(const char *fs, struct ap_error *e);

/*
 * Run mkfs: 0, or -errno with mkfs's own last stderr lines in @e. When
 * @cancel (may be NULL) cancels, asked every 200 ms while mkfs runs, the
 * child is terminated (SIGTERM), waited for, and -EINTR returned.
 * posix_spawnp reports a failed exec as its own error: no child of ours
 * ever returns into this code.
 */
int ap_mkfs_run(const char *fs, const char *dev, char *const *extra, size_t nextra,
		const struct ap_cancel *cancel, struct ap_error *e);

/*
 * Try mkfs of @fs with the @extra options on a sparse scratch image of
 * @size bytes in $TMPDIR (or /tmp), removed afterwards: the options are
 * checked before anything is written to a disk. 0, or -EINVAL with mkfs's
 * line naming the cause in @e (-errno for the scratch image itself).
 */
int ap_mkfs_try(const char *fs, unsigned long long size, char *const *extra, size_t nextra,
		struct ap_error *e);

#endif
