/* The help screen's text: each key of the TUI and what it does (keys.c does it). */
#include <stddef.h>

#include "tui_int.h"

const struct tui_keydoc tui_keys[] = {
    {"q", "quit, restore the terminal"},
    {"Ctrl-C", "quit at once (exit 130)"},
    {"? F1", "this help (Esc closes)"},
    {"Tab", "focus: panel tree / table"},
    {"Up Down", "tree: move; table: scroll"},
    {"Left Right", "close/open, scroll sideways"},
    {"PgUp PgDn", "a page up or down"},
    {"Home End", "first or last line"},
    {"Enter", "open the panel or table"},
    {"g", "go to an id (17, 2.1.3)"},
    {"/", "search metrics: name or id"},
    {"] [", "next / previous match"},
    {"k", "kernel list: filter panels"},
    {"d", "dispatch list: filter"},
    {"Space", "in a list: toggle an entry"},
    {"a", "in a list: all (no filter)"},
    {"n N", "next/previous normalization"},
    {"m", "memory chart view"},
    {"r", "roofline view"},
    {"f", "findings: Enter jumps to evidence"},
    {"s", "source view: PC samples per line"},
    {"Esc", "close a list, view, prompt"},
    {"Ctrl-L", "redraw the screen"},
};
const size_t tui_nkeys = sizeof tui_keys / sizeof tui_keys[0];
