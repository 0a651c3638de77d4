/* --clock-control through the backend (see clocks.h). */
#include "clocks.h"

#include <stdio.h>
#include <string.h>

#include "../store/table.h"
#include "backend.h"

int clocks_begin(const struct profile_opts *o, const struct backend *be, struct table *si,
                 struct profile_result *res)
{
        struct clock_state cs;
        memset(&cs, 0, sizeof cs);
        int rc = -1;
        if (be->clocks) {
                rc = be->clocks(o->clock_control, &cs);
        } else {
                snprintf(cs.desc, sizeof cs.desc, "the %s backend cannot lock GPU clocks",
                         be->name);
                rc = o->clock_control == CLOCK_BASE ? -1 : 0;
        }
        if (rc < 0 && o->clock_control == CLOCK_BASE) {
                warnf("--clock-control base: %s; profiling at the GPU's own clocks", cs.desc);
                snprintf(res->clocks, sizeof res->clocks, "none (base refused: %.150s)", cs.desc);
        } else if (o->clock_control == CLOCK_BASE) {
                snprintf(res->clocks, sizeof res->clocks, "%s", cs.desc);
        } else {
                snprintf(res->clocks, sizeof res->clocks, "%s",
                         cs.desc[0] && !strncmp(cs.desc, "none", 4)
                             ? cs.desc
                             : "none (the GPU's own clocks)");
        }
        if (!si->nrows)
                table_add_row(si);
        table_set_str(si, table_add_col(si, "clock_control"), 0, res->clocks);
        return cs.locked;
}

void clocks_end(const struct backend *be, int locked)
{
        if (locked && be->clocks_reset)
                be->clocks_reset();
}
