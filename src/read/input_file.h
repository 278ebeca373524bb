/*
 * read/input_file.h - every file latrec reads besides rings (catalog files,
 * C headers of stage ids, run.json): a regular file within a size limit,
 * read whole, or one line saying why not.
 *
 * The file is opened O_NONBLOCK (opening a FIFO never waits for a writer)
 * and checked with fstat before anything is read, so a FIFO, a device
 * (/dev/zero, /dev/urandom), a directory or a socket is refused at once; a
 * regular file that grows past the limit while it is read is refused too.
 * Symbolic links are followed (reading one is harmless; nothing is written).
 */
#ifndef LATREC_READ_INPUT_FILE_H
#define LATREC_READ_INPUT_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size limits, bytes (latrec-format(5) and the subcommand pages state them). */
#define LATREC_CATALOG_FILE_MAX (1u << 20) /* a catalog file: 1 MiB */
#define LATREC_HEADER_FILE_MAX (16u << 20) /* a C header of stage ids: 16 MiB */
#define LATREC_RUN_JSON_MAX (16u << 20)    /* a run directory's run.json: 16 MiB */

/* Read the regular file at `path` whole into *text (malloc'd, NUL-terminated
 * after *len bytes; free it). `what` names the kind of file for the limit
 * message ("catalog file"). Returns 0, or -1 with errno set and one line in
 * err (err may be NULL), "PATH: REASON":
 *   ENOENT etc.  "PATH: No such file or directory" (strerror)
 *   EISDIR       "PATH: a directory, not a regular file"
 *   EINVAL       "PATH: a FIFO, not a regular file" (also character device,
 *                block device, socket)
 *   EFBIG        "PATH: larger than the 1048576-byte limit of a catalog file"
 *   ENOMEM       "PATH: out of memory"
 * The caller prints "latrec CMD: <err>". */
int latrec_input_file_read(const char *path, size_t limit, const char *what, char **text, size_t *len, char *err,
                           size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* LATREC_READ_INPUT_FILE_H */
