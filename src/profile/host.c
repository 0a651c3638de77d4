/* The host columns of sysinfo.csv (host.h). */
#include "host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../store/table.h"
#include "../util/util.h"

const char *detect_root(void)
{
        const char *r = getenv("PRISM_SYSFS_ROOT");
        return r ? r : "";
}

void host_file_value(const char *rel, const char *prefix, char *buf, size_t len)
{
        buf[0] = 0;
        char *path = xasprintf("%s%s", detect_root(), rel);
        char *text = read_file(path, NULL, NULL);
        free(path);
        if (!text)
                return;
        size_t pl = prefix ? strlen(prefix) : 0;
        for (char *line = text; line && *line;) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = 0;
                if (!prefix) {
                        snprintf(buf, len, "%s", line);
                        break;
                }
                if (!strncmp(line, prefix, pl)) {
                        char *v = line + pl;
                        v += strspn(v, " \t:=\"");
                        snprintf(buf, len, "%s", v);
                        size_t n = strlen(buf);
                        while (n && strchr(" \t\"\r", buf[n - 1]))
                                buf[--n] = 0;
                        break;
                }
                line = nl ? nl + 1 : NULL;
        }
        free(text);
}

void sysinfo_set_str(struct table *si, const char *col, const char *v)
{
        if (!si->nrows)
                table_add_row(si);
        table_set_str(si, table_add_col(si, col), 0, v ? v : "");
}

void sysinfo_set_num(struct table *si, const char *col, double v)
{
        if (!si->nrows)
                table_add_row(si);
        table_set_num(si, table_add_col(si, col), 0, v);
}

void host_sysinfo(struct table *si)
{
        char buf[256], buf2[128];
        if (gethostname(buf, sizeof buf) != 0)
                buf[0] = 0;
        buf[sizeof buf - 1] = 0;
        sysinfo_set_str(si, "hostname", buf);
        host_file_value("/proc/cpuinfo", "model name", buf, sizeof buf);
        sysinfo_set_str(si, "cpu_model", buf);
        host_file_value("/sys/class/dmi/id/bios_vendor", NULL, buf, sizeof buf);
        host_file_value("/sys/class/dmi/id/bios_version", NULL, buf2, sizeof buf2);
        size_t bl = strlen(buf);
        snprintf(buf + bl, sizeof buf - bl, "%s", buf2);
        sysinfo_set_str(si, "sbios", buf);
        host_file_value("/etc/os-release", "PRETTY_NAME", buf, sizeof buf);
        sysinfo_set_str(si, "linux_distro", buf);
        struct utsname u;
        sysinfo_set_str(si, "linux_kernel_version", uname(&u) == 0 ? u.release : "");
}
