/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output files (--plot, --samples, --save, ...): opened before the work
 * starts, put in place when it is done.
 *
 * A command opens every output first, so that a path it cannot write is a
 * usage error before anything touches a device. The content goes to a
 * temporary file created next to the target (".NAME.XXXXXX" in the same
 * directory, so on the same file system), renamed over the target when
 * committed (and the directory synced): a reader sees the old file or the
 * new one, never half of one, and an existing file is not touched before
 * the commit (a run that fails or is discarded leaves it as it was).
 *
 * "-" is standard output, and so is any name of the file standard output
 * is open on (/dev/stdout redirected to a file); standard error's file is
 * written through its descriptor. An existing file that is not a regular
 * file (a FIFO, a terminal, /dev/null) is opened and written directly, never
 * replaced. A block device is refused: outputs are reports, and a
 * block device is a disk. A symbolic link to a regular file is written
 * through (the file it points to is replaced, the link stays).
 */
#ifndef AP_OUTFILE_H
#define AP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/util.h"

struct ap_outfile {
	char *path;		/* the final path (a link resolved); NULL when not open */
	char *tmp;		/* the temporary file, NULL when written directly */
	int fd;			/* the temporary file's, -1 when there is none */
	uint64_t off;		/* bytes written into it */
	FILE *stream;		/* written directly: standard output, a FIFO... */
	bool is_stdout;
	mode_t mode;		/* the final file's permissions */
	bool replaced, dirty;	/* replace() was used; written since */
	char *pending;		/* replace() on standard output or a FIFO: the */
	size_t npending;	/* last content, written by the commit */
};

/*
 * Open @path for output: 0, or -errno with "PATH: reason" in @e (-ENOENT
 * for a missing directory, -EISDIR, -EACCES, -EROFS, -ENOTBLK... and
 * -EPERM for a block device). Nothing is created at @path itself.
 */
int ap_outfile_open(struct ap_outfile *of, const char *path, struct ap_error *e);

/*
 * Give an open output another name in the same directory (for names that
 * depend on what the run finds, like a device's): 0 or -EXDEV.
 */
int ap_outfile_rename(struct ap_outfile *of, const char *path, struct ap_error *e);

/*
 * The permissions the file gets, whatever the umask and an existing file's
 * (files another user reads: node_exporter's textfile collector): 0 or
 * -errno. Outputs written directly (standard output, a FIFO) keep theirs.
 */
int ap_outfile_set_mode(struct ap_outfile *of, mode_t mode);

/* Append @len bytes: 0 or -errno. */
int ap_outfile_write(struct ap_outfile *of, const void *buf, size_t len);

/*
 * Put the content in place (fsync, rename over the target; standard output
 * and direct files: flush) and close: 0 or -errno with the reason in @e.
 * On failure the target is untouched and the temporary file removed. An
 * output that nothing was written to is discarded (not created).
 */
int ap_outfile_commit(struct ap_outfile *of, struct ap_error *e);

/*
 * For a file updated during the run (sweep --save): replace the whole
 * content with @buf now, atomically, and stay open for the next update
 * (standard output and direct files get the last content at the commit).
 * After a replace, ap_outfile_commit() only closes.
 */
int ap_outfile_replace(struct ap_outfile *of, const void *buf, size_t len, struct ap_error *e);

/*
 * The whole content at once (a plot, a report): write @len bytes of @buf
 * and commit. 0, or -errno with the reason in @e: "@name: reason" when the
 * write failed (the output discarded then), the commit's message otherwise.
 * @name is how the command's messages name the output (of->path or the
 * path as given).
 */
int ap_outfile_write_commit(struct ap_outfile *of, const char *name, const void *buf,
			    size_t len, struct ap_error *e);

/* Close without putting anything in place; the target stays as it was. */
void ap_outfile_discard(struct ap_outfile *of);

/*
 * @path with its directory resolved, the file itself need not exist yet
 * (malloc'd; @path as it is when its directory cannot be resolved).
 */
char *ap_path_canonical(const char *path);

/*
 * Is @path the file @of writes to (the same inode, or the same name when
 * neither exists yet)? For an output that would overwrite a command's input
 * or target.
 */
bool ap_outfile_is(const struct ap_outfile *of, const char *path);

/*
 * For files another module creates itself (the undo journal, PostMark's
 * `run FILE`): prove that @path can be written by creating (and removing)
 * a file in its directory; an existing @path must be writable (opened
 * without O_TRUNC and closed; with @must_not_exist it is refused with
 * -EEXIST instead). A block device is refused. 0 or -errno with @e.
 */
int ap_outfile_check(const char *path, bool must_not_exist, struct ap_error *e);

/*
 * For directories where a run creates its own files (mount points, the
 * state registry): prove that @dir takes a new file by creating and
 * removing one. 0 or -errno with "DIR: reason" in @e.
 */
int ap_outfile_check_dir(const char *dir, struct ap_error *e);

/*
 * Output to a reader that went away (`alignprobe probe ... | head -1`) is
 * not an error: SIGPIPE is ignored so that a run can clean up, and what
 * the reader did not read it did not want (util-linux's close_stdout()
 * ignores EPIPE the same way). Every function below returns 0 then.
 */
bool ap_out_reader_gone(FILE *f);
/* fflush(@f) and its error flag: 0 or -errno. */
int ap_out_flush(FILE *f);

#endif
