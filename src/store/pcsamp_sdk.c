/* rocprofiler-sdk's results JSON (rocprofv3 --output-format json, the file rocprof-compute
 * names ps_file_results.json, <pid>_ps_file_results.json from 3.9): its PC samples grouped
 * per kernel and instruction offset, as rocprof-compute's PC-sampling analysis groups them.
 * Keys are looked up anywhere in the document, as rocprof-compute does; a sample names its
 * instruction (inst_index into strings.pc_sample_instructions and pc_sample_comments), its
 * code object and offset, its dispatch, and for stochastic sampling whether the wave issued
 * and, when not, why (snapshot.stall_reason). */
#include "pcsamp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/arena.h"
#include "../util/json.h"

#define REASON_PREFIX "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_"

struct ksym {
        unsigned long long id, co, entry;
        const char *name;
};

struct sdk {
        const char *path;
        struct err *err;
        struct ksym *syms;
        size_t nsyms;
        const struct json *dispatches; /* buffer_records.kernel_dispatch, or NULL */
        const struct json *instr, *comments;
        struct smap line_of;           /* "co:offset:kernel" -> line index */
        int last_ok;                   /* kernel_of's last dispatch and its kernel */
        unsigned long long last_dispatch;
        const char *last_name;
};

static int bad(struct sdk *s, const struct json *v, const char *what)
{
        return err_set(s->err, ERR_INPUT, "%s:%zu: %s", s->path, v ? v->line : 0, what);
}

/* An unsigned integer member of o at path; 1 found, 0 absent (or null), -1 not one. */
static int get_uint(const struct json *o, const char *path, unsigned long long *out)
{
        const struct json *v = json_path(o, path);
        if (!v || v->type == JSON_NULL)
                return 0;
        if (v->type != JSON_NUM || !v->is_uint)
                return -1;
        *out = v->u;
        return 1;
}

static const char *get_str(const struct json *o, const char *key)
{
        const struct json *v = json_get(o, key);
        return v && v->type == JSON_STR ? v->str : NULL;
}

static int load_symbols(struct sdk *s, const struct json *ks)
{
        if (!ks)
                return 0;
        if (ks->type != JSON_ARR)
                return bad(s, ks, "'kernel_symbols' is not an array");
        s->syms = xcalloc(ks->n ? ks->n : 1, sizeof *s->syms);
        for (size_t i = 0; i < ks->n; i++) {
                const struct json *k = ks->items[i];
                struct ksym *y = &s->syms[s->nsyms];
                if (k->type != JSON_OBJ)
                        return bad(s, k, "a kernel symbol is not an object");
                const char *name = get_str(k, "formatted_kernel_name");
                if (!name)
                        name = get_str(k, "demangled_kernel_name");
                if (!name)
                        name = get_str(k, "kernel_name");
                if (get_uint(k, "kernel_id", &y->id) < 0 ||
                    get_uint(k, "code_object_id", &y->co) < 0 ||
                    get_uint(k, "kernel_code_entry_byte_offset", &y->entry) < 0)
                        return bad(s, k, "a kernel symbol's id, code object or entry offset is "
                                         "not a number");
                if (!name)
                        continue;
                y->name = name;
                s->nsyms++;
        }
        return 0;
}

/* The kernel that ran the sample: through its dispatch (3.9+), else the kernel whose code
 * starts last at or before the offset in the same code object (3.3's rule). */
static const char *kernel_of(struct sdk *s, unsigned long long co, unsigned long long off,
                             int has_dispatch, unsigned long long dispatch)
{
        /* consecutive samples mostly come from one dispatch: the last answer is kept */
        if (has_dispatch && s->last_ok && s->last_dispatch == dispatch)
                return s->last_name;
        if (has_dispatch && s->dispatches && s->dispatches->type == JSON_ARR) {
                for (size_t i = 0; i < s->dispatches->n; i++) {
                        unsigned long long d, kid;
                        const struct json *di = s->dispatches->items[i];
                        if (get_uint(di, "dispatch_info.dispatch_id", &d) == 1 && d == dispatch &&
                            get_uint(di, "dispatch_info.kernel_id", &kid) == 1) {
                                for (size_t k = 0; k < s->nsyms; k++)
                                        if (s->syms[k].id == kid) {
                                                s->last_ok = 1;
                                                s->last_dispatch = dispatch;
                                                return s->last_name = s->syms[k].name;
                                        }
                                break;
                        }
                }
        }
        const struct ksym *best = NULL;
        for (size_t k = 0; k < s->nsyms; k++) {
                const struct ksym *y = &s->syms[k];
                if (y->co == co && y->entry <= off && (!best || y->entry > best->entry))
                        best = y;
        }
        return best ? best->name : NULL;
}

static const char *str_at(const struct json *arr, unsigned long long i)
{
        if (!arr || arr->type != JSON_ARR || i >= arr->n || arr->items[i]->type != JSON_STR)
                return NULL;
        return arr->items[i]->str;
}

static int add_sample(struct sdk *s, struct pcsamp *ps, long long pid, const struct json *smp)
{
        unsigned long long co = 0, off = 0, idx = 0, disp = 0;
        const struct json *rec = json_get(smp, "record");
        int a = get_uint(rec, "pc.code_object_id", &co), b = get_uint(rec, "pc.code_object_offset", &off),
            c = get_uint(smp, "inst_index", &idx), d = get_uint(rec, "dispatch_id", &disp);
        if (smp->type != JSON_OBJ || (rec && rec->type != JSON_OBJ))
                return bad(s, smp, "a PC sample is not an object");
        if (a < 0 || b < 0 || c < 0 || d < 0)
                return bad(s, smp, "a PC sample's code object, offset, instruction index or "
                                   "dispatch is not a non-negative integer");
        if (!a || !b || !c) /* rocprof-compute skips samples it cannot place */
                return 0;
        const char *kernel = kernel_of(s, co, off, d == 1, disp);
        char key[96];
        snprintf(key, sizeof key, "%llu:%llu:%lld:%p", co, off, pid, (const void *)kernel);
        int li;
        struct pcs_line *l;
        if (smap_get(&s->line_of, key, &li)) {
                l = &ps->lines[li];
        } else {
                l = pcsamp_add(ps, kernel, str_at(s->instr, idx), str_at(s->comments, idx));
                l->pid = pid, l->code_object = (long long)co, l->offset = off, l->has_offset = 1;
                smap_put(&s->line_of, key, (int)(ps->nlines - 1));
        }
        l->count++;
        const struct json *issued = json_get(rec, "wave_issued");
        if (!issued || issued->type == JSON_NULL)
                return 0; /* host trap: nothing said about issue */
        if (issued->type != JSON_BOOL && issued->type != JSON_NUM)
                return bad(s, issued, "'wave_issued' is not a boolean");
        if (isnan(l->issued))
                l->issued = l->stalled = 0;
        if (issued->type == JSON_BOOL ? issued->b : issued->num != 0) {
                l->issued++;
                return 0;
        }
        l->stalled++;
        const struct json *why = json_path(rec, "snapshot.stall_reason");
        if (why && why->type == JSON_STR && !strncmp(why->str, REASON_PREFIX, strlen(REASON_PREFIX)))
                pcsamp_line_add_reason(l, pcsamp_reason(ps, why->str + strlen(REASON_PREFIX)), 1);
        else if (why && why->type != JSON_NULL && why->type != JSON_STR)
                return bad(s, why, "'stall_reason' is not a text");
        return 0;
}

int pcsamp_read_sdk_json(struct pcsamp *ps, const char *path, long long pid, struct err *err)
{
        struct arena a = ARENA_INIT;
        struct sdk s = {.path = path, .err = err};
        size_t len, first = ps->nlines;
        int rc = 0;
        char *text = read_file(path, &len, err);
        if (!text)
                return ERR_INPUT;
        const struct json *root = json_parse(&a, text, len, path, err);
        if (!root) {
                rc = ERR_INPUT;
                goto out;
        }
        const struct json *tool = json_get(root, "rocprofiler-sdk-tool");
        if (tool && tool->type == JSON_ARR && tool->n)
                tool = tool->items[0];
        else
                tool = root;
        if (pid < 0) {
                unsigned long long p;
                if (get_uint(tool, "metadata.pid", &p) == 1)
                        pid = (long long)p;
        }
        const struct json *st = json_find(tool, "pc_sample_stochastic"),
                          *ht = json_find(tool, "pc_sample_host_trap");
        if (!st && !ht) {
                rc = err_set(err, ERR_INPUT, "%s: not a PC-sampling results file: no "
                             "'pc_sample_stochastic' or 'pc_sample_host_trap' records", path);
                goto out;
        }
        if ((st && st->type != JSON_ARR) || (ht && ht->type != JSON_ARR)) {
                rc = bad(&s, st && st->type != JSON_ARR ? st : ht, "PC samples are not an array");
                goto out;
        }
        if ((rc = load_symbols(&s, json_find(tool, "kernel_symbols"))))
                goto out;
        s.dispatches = json_find(tool, "kernel_dispatch");
        s.instr = json_find(tool, "pc_sample_instructions");
        s.comments = json_find(tool, "pc_sample_comments");
        const struct json *arrs[2] = {st, ht};
        for (int k = 0; k < 2 && !rc; k++)
                for (size_t i = 0; arrs[k] && i < arrs[k]->n && !rc; i++)
                        rc = add_sample(&s, ps, pid, arrs[k]->items[i]);
        if (rc)
                goto out;
        for (size_t i = first; i < ps->nlines; i++)
                pcsamp_sort_reasons(&ps->lines[i]);
        if (!ps->method)
                ps->method = xstrdup(st && st->n ? "stochastic" : "host_trap");
        if (!ps->file)
                ps->file = xstrdup(path);
out:
        smap_free(&s.line_of);
        free(s.syms);
        free(text);
        arena_free(&a);
        return rc;
}
