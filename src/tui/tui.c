/* The ncurses layer of the TUI: set up and restore the terminal, turn keys into model keys
 * and composed frames into screen cells, follow resizes and signals. Everything shown is
 * decided by the model (model.c, keys.c, frame.c). */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t curses_active;
static int utf8;

static void restore_terminal(void)
{
        if (curses_active) {
                curses_active = 0;
                endwin();
        }
}

/* SIGINT, SIGTERM, SIGHUP: the input loop polls every 100 ms, sees the flag and leaves
 * through the same path as 'q' (endwin is not async-signal-safe, so the handler only
 * records). A second signal means the loop is stuck: restore the terminal here and go. */
static void on_interrupt(int sig)
{
        if (got_signal) {
                restore_terminal();
                _exit(128 + sig);
        }
        got_signal = sig;
}

/* A crash: give the terminal back before dying, then die of the same signal. */
static void on_fatal(int sig)
{
        restore_terminal();
        signal(sig, SIG_DFL);
        raise(sig);
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT};
#define NCAUGHT (sizeof caught / sizeof caught[0])
#define NFATAL (sizeof fatal / sizeof fatal[0])

static void signals_install(struct sigaction *old_caught, struct sigaction *old_fatal)
{
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sa.sa_handler = on_interrupt; /* no SA_RESTART: a blocked read returns */
        for (size_t i = 0; i < NCAUGHT; i++)
                sigaction(caught[i], &sa, &old_caught[i]);
        sa.sa_handler = on_fatal;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        for (size_t i = 0; i < NFATAL; i++)
                sigaction(fatal[i], &sa, &old_fatal[i]);
}

static void signals_restore(const struct sigaction *old_caught, const struct sigaction *old_fatal)
{
        for (size_t i = 0; i < NCAUGHT; i++)
                sigaction(caught[i], &old_caught[i], NULL);
        for (size_t i = 0; i < NFATAL; i++)
                sigaction(fatal[i], &old_fatal[i], NULL);
}

enum { P_BAR = 1, P_RULE, P_MATCH, P_GREEN, P_YELLOW, P_RED, P_KEY, P_ERROR };

static int colors;

static void colors_init(void)
{
        if (!has_colors() || start_color() == ERR)
                return;
        colors = 1;
        use_default_colors();
        init_pair(P_BAR, COLOR_BLACK, COLOR_CYAN);
        init_pair(P_RULE, COLOR_BLUE, -1);
        init_pair(P_MATCH, COLOR_BLACK, COLOR_YELLOW);
        init_pair(P_GREEN, COLOR_GREEN, -1);
        init_pair(P_YELLOW, COLOR_YELLOW, -1);
        init_pair(P_RED, COLOR_RED, -1);
        init_pair(P_KEY, COLOR_CYAN, -1);
        init_pair(P_ERROR, COLOR_WHITE, COLOR_RED);
}

/* model attribute -> curses attribute; without colors, bold/underline/reverse say it */
static attr_t attr_of(int a)
{
        switch (a) {
        case TA_BAR:
                return colors ? COLOR_PAIR(P_BAR) : A_REVERSE;
        case TA_HEAD:
                return A_BOLD;
        case TA_RULE:
                return colors ? COLOR_PAIR(P_RULE) : A_NORMAL;
        case TA_SEL:
                return A_REVERSE;
        case TA_SEL_DIM:
                return A_BOLD | A_UNDERLINE;
        case TA_MATCH:
                return colors ? COLOR_PAIR(P_MATCH) | A_BOLD : A_REVERSE | A_BOLD;
        case TA_POP_LOW:
                return colors ? COLOR_PAIR(P_GREEN) : A_NORMAL;
        case TA_POP_MID:
                return colors ? COLOR_PAIR(P_YELLOW) : A_UNDERLINE;
        case TA_POP_HIGH:
                return colors ? COLOR_PAIR(P_RED) | A_BOLD : A_BOLD;
        case TA_BETTER:
                return colors ? COLOR_PAIR(P_GREEN) | A_BOLD : A_BOLD;
        case TA_WORSE:
                return colors ? COLOR_PAIR(P_RED) | A_BOLD : A_BOLD | A_UNDERLINE;
        case TA_KEY:
                return colors ? COLOR_PAIR(P_KEY) | A_BOLD : A_BOLD;
        case TA_ERROR:
                return colors ? COLOR_PAIR(P_ERROR) | A_BOLD : A_REVERSE | A_BOLD;
        }
        return A_NORMAL;
}

/* box-drawing and other non-ASCII characters on a terminal without UTF-8 */
static const char *ascii_of(const char *ch)
{
        static const char *const map[][2] = {{"│", "|"}, {"─", "-"}, {"┼", "+"},
                                             {"…", "~"}, {"▾", "v"}, {"▸", ">"}};
        if ((unsigned char)ch[0] < 0x80)
                return ch;
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
                if (!strcmp(ch, map[i][0]))
                        return map[i][1];
        return "?";
}

static void draw(const struct tui_frame *f)
{
        char run[4096];
        for (int y = 0; y < f->rows; y++) {
                int x = 0;
                while (x < f->cols) {
                        int a = f->cells[y * f->cols + x].attr, x0 = x;
                        size_t len = 0;
                        while (x < f->cols && f->cells[y * f->cols + x].attr == a &&
                               len + 5 < sizeof run) {
                                const char *ch = f->cells[y * f->cols + x].ch;
                                if (!utf8)
                                        ch = ascii_of(ch);
                                size_t n = strlen(ch);
                                memcpy(run + len, ch, n);
                                len += n;
                                x++;
                        }
                        run[len] = 0;
                        attrset(attr_of(a));
                        /* the bottom-right cell cannot be written without scrolling: ERR
                         * there is expected and harmless */
                        mvaddstr(y, x0, run);
                }
        }
        attrset(A_NORMAL);
        if (f->cy >= 0) {
                curs_set(1);
                move(f->cy, f->cx < f->cols ? f->cx : f->cols - 1);
        } else {
                curs_set(0);
        }
        refresh();
}

static int map_key(int ch)
{
        switch (ch) {
        case KEY_UP:
                return TK_UP;
        case KEY_DOWN:
                return TK_DOWN;
        case KEY_LEFT:
                return TK_LEFT;
        case KEY_RIGHT:
                return TK_RIGHT;
        case KEY_PPAGE:
                return TK_PGUP;
        case KEY_NPAGE:
                return TK_PGDN;
        case KEY_HOME:
                return TK_HOME;
        case KEY_END:
                return TK_END;
        case KEY_BACKSPACE:
                return TK_BACKSPACE;
        case KEY_ENTER:
        case '\r':
        case '\n':
                return TK_ENTER;
        case KEY_F(1):
                return TK_F1;
        }
        return ch >= 0 && ch < 256 ? ch : -1;
}

int tui_run(const struct tui_input *in, struct err *err)
{
        static int registered;
        struct tui_model m;
        struct sigaction old_caught[NCAUGHT], old_fatal[NFATAL];
        SCREEN *scr = NULL;
        int rc, saved_quiet = warn_quiet;

        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
                return err_set(err, ERR_USAGE, "--tui needs a terminal on stdin and stdout");
        if ((rc = tui_model_init(&m, in, err)))
                return rc;
        setlocale(LC_ALL, "");
        utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
        if (!utf8 && setlocale(LC_CTYPE, "C.UTF-8"))
                utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");

        got_signal = 0;
        signals_install(old_caught, old_fatal);
        scr = newterm(NULL, stdout, stdin);
        if (!scr) {
                signals_restore(old_caught, old_fatal);
                tui_model_free(&m);
                const char *t = getenv("TERM");
                return err_set(err, ERR_INPUT, "cannot start the terminal interface (TERM=%s)",
                               t ? t : "unset");
        }
        curses_active = 1;
        if (!registered) {
                atexit(restore_terminal); /* exit() from anywhere still restores */
                registered = 1;
        }
        /* warnings on stderr would scribble over the screen */
        warn_quiet = 1;
        cbreak();
        noecho();
        keypad(stdscr, TRUE);
        set_escdelay(25);
        timeout(100);
        colors_init();

        int dirty = 1;
        while (!m.quit && !got_signal) {
                if (dirty) {
                        struct tui_frame f;
                        int rows, cols;
                        getmaxyx(stdscr, rows, cols);
                        tui_frame_init(&f, rows, cols);
                        tui_compose(&m, &f);
                        draw(&f);
                        tui_frame_free(&f);
                        dirty = 0;
                }
                int ch = getch();
                if (ch == ERR || got_signal)
                        continue;
                dirty = 1;
                if (ch == KEY_RESIZE)
                        continue; /* ncurses has the new size; the next frame uses it */
                if (ch == TK_CTRL_L)
                        clearok(curscr, TRUE);
                int k = map_key(ch);
                if (k >= 0)
                        tui_key(&m, k);
        }
        restore_terminal();
        delscreen(scr);
        warn_quiet = saved_quiet;
        signals_restore(old_caught, old_fatal);
        tui_model_free(&m);
        return got_signal ? TUI_INTERRUPTED : 0;
}
