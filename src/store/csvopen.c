/* Opening a CSV file for reading (csvopen.h). */
#include "csvopen.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int csv_open_file(const char *path, off_t *size, struct err *err)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                err_set(err, ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
                return -1;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
                err_set(err, ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
                err_set(err, ERR_INPUT, "'%s' is a directory, expected a CSV file", path);
        } else if (!S_ISREG(st.st_mode)) {
                err_set(err, ERR_INPUT, "'%s' is not a regular file", path);
        } else {
                *size = st.st_size;
                return fd;
        }
        close(fd);
        return -1;
}
