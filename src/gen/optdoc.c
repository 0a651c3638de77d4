/* optdoc: the option tables (src/cmd_options.c) as documentation, at build time.
 *   optdoc man TEMPLATE CMD   the man page TEMPLATE with its generated parts replaced: the
 *                             lines between ".\" synopsis:" and ".\" end of synopsis", and
 *                             between ".\" options:" and ".\" end of options"
 *   optdoc bash TEMPLATE      the bash completion: TEMPLATE with the lines between
 *                             "        # commands:" and "        # end of commands" replaced
 *   optdoc zsh TEMPLATE       the zsh completion: the same
 * A generated file is its own template: regenerating it changes nothing.
 * Output on stdout; exit 2 on a bad template. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/opt.h"
#include "util/util.h"

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "r");
        if (!f) {
                fprintf(stderr, "optdoc: cannot read %s\n", path);
                exit(2);
        }
        struct strbuf sb = {0};
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
                sb_addn(&sb, buf, n);
        fclose(f);
        return sb_detach(&sb);
}

/* the value of an option in mdoc: "Ar dir", "Ar id ...", "Op Ar arch", "Cm a | b" */
static void man_arg(struct strbuf *sb, const struct opt *o)
{
        if (!o->arg)
                return;
        const char *w = o->words;
        if (w && w[0] != '@' && !strchr(o->arg, '.')) { /* the words it takes */
                sb_add(sb, " Cm");
                for (const char *p = w; *p;) {
                        size_t n = strcspn(p, " ");
                        sb_addf(sb, " %.*s", (int)n, p);
                        p += n;
                        while (*p == ' ')
                                p++;
                        if (*p)
                                sb_add(sb, " |");
                }
                return;
        }
        int opt = o->arg[0] == '[';
        const char *a = o->arg + opt;
        size_t n = strcspn(a, ".]|");
        sb_add(sb, opt ? " Op Ar " : " Ar ");
        for (size_t i = 0; i < n; i++)
                sb_addc(sb, (char)tolower((unsigned char)a[i]));
        if (strstr(o->arg, "..."))
                sb_add(sb, " ...");
}

static void man_names(struct strbuf *sb, const struct opt *o)
{
        if (o->shrt)
                sb_addf(sb, "Fl %c , Fl -%s", o->shrt, o->lng);
        else
                sb_addf(sb, "Fl -%s", o->lng);
}

/* the man text of an option: its own, else its help on one line, as a sentence */
static void man_text(struct strbuf *sb, const struct opt *o)
{
        if (o->man) {
                sb_add(sb, o->man);
                sb_addc(sb, '\n');
                return;
        }
        size_t start = sb->len;
        for (const char *p = o->help; *p; p++) {
                char c = *p == '\n' ? ' ' : *p;
                /* a line starting with a period or quote would be a request */
                if ((sb->len == start || sb->buf[sb->len - 1] == '\n') && (c == '.' || c == '\''))
                        sb_add(sb, "\\&");
                if (c == '\\')
                        sb_add(sb, "\\e");
                else
                        sb_addc(sb, c);
        }
        sb_add(sb, ".\n");
}

/* the text between a line starting with `from` and one starting with `to` replaced */
static char *replace_between(char *text, const char *from, const char *to, const char *with,
                             const char *what)
{
        char *a = strstr(text, from), *b = a ? strstr(a, to) : NULL;
        if (!a || !b) {
                fprintf(stderr, "optdoc: the template lacks the %s markers\n", what);
                exit(2);
        }
        a = strchr(a, '\n') + 1;
        struct strbuf sb = {0};
        sb_addn(&sb, text, (size_t)(a - text));
        sb_add(&sb, with);
        sb_add(&sb, b);
        free(text);
        return sb_detach(&sb);
}

static int do_man(const char *tpl, const char *name)
{
        const struct cmd_spec *c = cmd_spec(name);
        if (!c) {
                fprintf(stderr, "optdoc: no command '%s'\n", name);
                return 2;
        }
        char *text = slurp(tpl);
        /* the synopsis: every option not written before the marker (required ones) */
        char *syn = strstr(text, ".\\\" synopsis:");
        struct strbuf s = {0}, l = {0};
        for (size_t i = 0; i < c->nopts; i++) {
                const struct opt *o = &c->opts[i];
                if (!strcmp(o->lng, "help"))
                        continue;
                char lf[64], sf[8];
                snprintf(lf, sizeof lf, "Fl -%s", o->lng);
                snprintf(sf, sizeof sf, "Fl %c ", o->shrt ? o->shrt : '?');
                size_t head = syn ? (size_t)(syn - text) : 0;
                char *h = xstrndup(text, head), *sy = strstr(h, ".Sh SYNOPSIS");
                int given = sy && (strstr(sy, lf) || (o->shrt && strstr(sy, sf)));
                free(h);
                if (given)
                        continue;
                sb_add(&s, ".Op ");
                if (o->shrt)
                        sb_addf(&s, "Fl %c", o->shrt);
                else
                        sb_addf(&s, "Fl -%s", o->lng);
                man_arg(&s, o);
                sb_addc(&s, '\n');
        }
        sb_add(&l, ".Bl -tag -width Ds\n");
        for (size_t i = 0; i < c->nopts; i++) {
                const struct opt *o = &c->opts[i];
                sb_add(&l, ".It ");
                man_names(&l, o);
                man_arg(&l, o);
                sb_addc(&l, '\n');
                man_text(&l, o);
        }
        sb_add(&l, ".El\n");
        text = replace_between(text, ".\\\" synopsis:", ".\\\" end of synopsis", s.buf ? s.buf : "",
                               "synopsis");
        text = replace_between(text, ".\\\" options:", ".\\\" end of options", l.buf, "options");
        fputs(text, stdout);
        free(text);
        sb_free(&s);
        sb_free(&l);
        return 0;
}

/* the words completion offers after an option, as a bash command */
static const char *bash_action(const char *w, char *buf, size_t len)
{
        if (!strcmp(w, "@dirs"))
                return "COMPREPLY=($(compgen -d -- \"$cur\"))";
        if (!strcmp(w, "@files"))
                return "COMPREPLY=($(compgen -f -- \"$cur\"))";
        if (!strcmp(w, "@archs"))
                return "COMPREPLY=($(compgen -W \"$(_prism_archs)\" -- \"$cur\"))";
        if (!strcmp(w, "@ids"))
                return "COMPREPLY=($(compgen -W \"$(_prism_ids)\" -- \"$cur\"))";
        if (!strcmp(w, "@levels"))
                return "COMPREPLY=($(compgen -W \"$(_prism_levels)\" -- \"$cur\"))";
        snprintf(buf, len, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", w);
        return buf;
}

static void all_names(struct strbuf *sb, const struct cmd_spec *c)
{
        for (size_t i = 0; i < c->nopts; i++) {
                const struct opt *o = &c->opts[i];
                if (o->shrt)
                        sb_addf(sb, "%s-%c", sb->len ? " " : "", o->shrt);
                sb_addf(sb, "%s--%s", sb->len ? " " : "", o->lng);
        }
}

static int do_bash(const char *tpl)
{
        struct strbuf sb = {0}, cmds = {0};
        char buf[512];
        for (const struct cmd_spec *c = cmd_specs; c->name; c++) {
                sb_addf(&cmds, "%s%s", cmds.len ? " " : "", c->name);
                sb_addf(&sb, "        %s)\n                case $prev in\n", c->name);
                const struct opt *many = NULL; /* an option whose values are ids */
                for (size_t i = 0; i < c->nopts; i++) {
                        const struct opt *o = &c->opts[i];
                        if (!o->words || !o->arg)
                                continue;
                        if (opt_takes(o) == 2 && !strcmp(o->words, "@ids")) {
                                many = o;
                                continue;
                        }
                        sb_add(&sb, "                ");
                        if (o->shrt)
                                sb_addf(&sb, "-%c | ", o->shrt);
                        sb_addf(&sb, "--%s) %s; return ;;\n", o->lng,
                                bash_action(o->words, buf, sizeof buf));
                }
                sb_add(&sb, "                esac\n");
                if (many) { /* after it, up to the next option: its values */
                        sb_addf(&sb,
                                "                local i\n"
                                "                for ((i = COMP_CWORD - 1; i > 1; i--)); do\n"
                                "                        [[ ${COMP_WORDS[i]} == -* ]] || continue\n"
                                "                        if [[ ${COMP_WORDS[i]} == -%c || "
                                "${COMP_WORDS[i]} == --%s ]] && [[ $cur != -* ]]; then\n"
                                "                                %s\n"
                                "                                return\n"
                                "                        fi\n"
                                "                        break\n"
                                "                done\n",
                                many->shrt, many->lng, bash_action(many->words, buf, sizeof buf));
                }
                struct strbuf names = {0};
                all_names(&names, c);
                sb_addf(&sb, "                COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n",
                        names.buf);
                sb_add(&sb, "                ;;\n");
                sb_free(&names);
        }
        sb_addf(&sb, "        help) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")) ;;\n", cmds.buf);
        struct strbuf all = {0};
        sb_addf(
            &all,
            "        if ((COMP_CWORD == 1)); then\n"
            "                COMPREPLY=($(compgen -W \"%s help --version --help\" -- \"$cur\"))\n"
            "                return\n"
            "        fi\n"
            "        case $cmd in\n%s        esac\n",
            cmds.buf, sb.buf);
        char *text = replace_between(slurp(tpl), "        # commands:", "        # end of commands",
                                     all.buf, "commands");
        fputs(text, stdout);
        free(text);
        sb_free(&all);
        sb_free(&sb);
        sb_free(&cmds);
        return 0;
}

/* an option's help as a zsh description: on one line, without [ ] : ' */
static void zsh_desc(struct strbuf *sb, const char *h)
{
        for (; *h; h++)
                sb_addc(sb, *h == '['                  ? '('
                            : *h == ']'                ? ')'
                            : *h == ':'                ? ','
                            : *h == '\'' || *h == '\n' ? ' '
                                                       : *h);
}

static int do_zsh(const char *tpl)
{
        struct strbuf sb = {0}, cmds = {0};
        for (const struct cmd_spec *c = cmd_specs; c->name; c++) {
                sb_addf(&cmds, "%s%s", cmds.len ? " " : "", c->name);
                sb_addf(&sb, "        %s)\n                _arguments -s", c->name);
                for (size_t i = 0; i < c->nopts; i++) {
                        const struct opt *o = &c->opts[i];
                        sb_add(&sb, " \\\n                        '*'");
                        if (o->shrt)
                                sb_addf(&sb, "{-%c,--%s}", o->shrt, o->lng);
                        else
                                sb_addf(&sb, "--%s", o->lng);
                        sb_add(&sb, "'[");
                        zsh_desc(&sb, o->help);
                        sb_add(&sb, "]");
                        if (o->arg) {
                                const char *w = o->words;
                                sb_addf(&sb, "%s:%s:", opt_takes(o) == 3 ? ":" : "",
                                        o->arg[0] == '[' ? "arch" : "value");
                                if (!w)
                                        sb_add(&sb, " ");
                                else if (!strcmp(w, "@dirs"))
                                        sb_add(&sb, "_files -/");
                                else if (!strcmp(w, "@files"))
                                        sb_add(&sb, "_files");
                                else if (!strcmp(w, "@archs"))
                                        sb_add(&sb, "_prism_archs");
                                else if (!strcmp(w, "@ids"))
                                        sb_add(&sb, "_prism_ids");
                                else if (!strcmp(w, "@levels"))
                                        sb_add(&sb, "_prism_levels");
                                else
                                        sb_addf(&sb, "(%s)", w);
                        }
                        sb_add(&sb, "'");
                }
                if (!strcmp(c->name, "profile"))
                        sb_add(&sb, " \\\n                        '*::command:_normal'");
                sb_add(&sb, "\n                ;;\n");
        }
        struct strbuf all = {0};
        sb_addf(&all,
                "        if (( CURRENT == 2 )); then\n"
                "                compadd -- %s help\n"
                "                return\n"
                "        fi\n"
                "        local cmd=$words[2]\n"
                "        shift words\n"
                "        (( CURRENT-- ))\n"
                "        case $cmd in\n%s        esac\n",
                cmds.buf, sb.buf);
        char *text = replace_between(slurp(tpl), "        # commands:", "        # end of commands",
                                     all.buf, "commands");
        fputs(text, stdout);
        free(text);
        sb_free(&all);
        sb_free(&sb);
        sb_free(&cmds);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc == 4 && !strcmp(argv[1], "man"))
                return do_man(argv[2], argv[3]);
        if (argc == 3 && !strcmp(argv[1], "bash"))
                return do_bash(argv[2]);
        if (argc == 3 && !strcmp(argv[1], "zsh"))
                return do_zsh(argv[2]);
        fprintf(stderr, "usage: optdoc man TEMPLATE CMD | bash TEMPLATE | zsh TEMPLATE\n");
        return 2;
}
