#!/usr/bin/env python3
"""The options a person reads about are the binary's (issue 30): for every command, the
options `prism CMD --help` lists are those of its man page's OPTIONS section, of the bash and
zsh completions and of the README; and man/ and completion/ are what the build generates from
the option table (src/cmd_options.c: `make docs` writes them). Prints 'N passed, N failed,
N skipped'."""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRISM = os.environ.get("PRISM", os.path.join(ROOT, "prism"))
BUILD = os.environ.get("PRISM_BUILD", os.path.join(ROOT, "build"))
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed += bool(ok)
    failed += not ok
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def help_opts(cmd):
    out = subprocess.run([PRISM, cmd, "--help"], capture_output=True, text=True).stdout
    opts = set()
    for l in out.split("\n"):
        m = re.match(r"  (?:-(\w), )?\s*--([\w-]+)", l)
        if m:
            opts.add("--" + m.group(2))
            if m.group(1):
                opts.add("-" + m.group(1))
    return opts


def main():
    readme = open(os.path.join(ROOT, "README.md")).read()
    bash = open(os.path.join(ROOT, "completion", "prism.bash")).read()
    zsh = open(os.path.join(ROOT, "completion", "_prism")).read()
    for cmd in ("analyze", "profile", "roofline", "database", "check-data"):
        opts = help_opts(cmd)
        check(f"{cmd} --help lists its options", "--help" in opts and len(opts) >= 2, opts)
        longs = {o for o in opts if o.startswith("--")}
        if cmd != "check-data":
            page = open(os.path.join(ROOT, "man", f"prism-{cmd}.1")).read()
            sec = page.split(".Sh OPTIONS", 1)[-1].split("\n.Sh ", 1)[0]
            items = set()
            for l in sec.split("\n"):
                if l.startswith(".It "):
                    items |= {"--" + x for x in re.findall(r"Fl -([\w-]+)", l)}
                    items |= {"-" + x for x in re.findall(r"Fl (\w)\b", l)}
            check(f"man prism-{cmd}: its OPTIONS are --help's", items == opts,
                  f"man lacks {sorted(opts - items)}, has more {sorted(items - opts)}")
            syn = page.split(".Sh SYNOPSIS", 1)[-1].split(".Sh ", 1)[0]
            missing = [o for o in longs - {"--help"}
                       if f"Fl -{o[2:]}" not in syn and not any(
                           f"Fl {s[1:]}" in syn for s in opts if len(s) == 2 and
                           help_pair(cmd, s) == o)]
            check(f"man prism-{cmd}: its SYNOPSIS names every option", not missing, missing)
            words = [l for l in readme.split("\n") if l.startswith("| `prism " + cmd) or
                     l.startswith("| `  ")]
            lacking = sorted(o for o in longs - {"--help"} if not re.search(
                re.escape(o) + r"(?![\w-])", readme))
            check(f"README: every option of {cmd} is there", not lacking, lacking)
        m = re.search(r"\n        " + re.escape(cmd) + r"\)\n(.*?)\n                ;;", bash, re.S)
        got = set()
        if m:
            w = re.findall(r'compgen -W "([^"$]*)" -- "\$cur"\)\)', m.group(1))
            got = set(w[-1].split()) if w else set()
        check(f"bash completion: {cmd}'s options are --help's", got == opts,
              f"lacks {sorted(opts - got)}, has more {sorted(got - opts)}")
        m = re.search(r"\n        " + re.escape(cmd) + r"\)\n(.*?)\n                ;;", zsh, re.S)
        zgot = set()
        if m:
            for a, b in re.findall(r"\{-(\w),--([\w-]+)\}|'\*'--([\w-]+)'", m.group(1)) and [] or []:
                pass
            zgot = {"--" + x for x in re.findall(r"--([\w-]+)(?:'|\})", m.group(1))}
            zgot |= {"-" + x for x in re.findall(r"\{-(\w),", m.group(1))}
        check(f"zsh completion: {cmd}'s options are --help's", zgot == opts,
              f"lacks {sorted(opts - zgot)}, has more {sorted(zgot - opts)}")
    # the completions parse (zsh only where it is installed; bash always is)
    r = subprocess.run(["bash", "-n", os.path.join(ROOT, "completion", "prism.bash")],
                       capture_output=True, text=True)
    check("completion/prism.bash parses (bash -n)", r.returncode == 0, r.stderr)
    import shutil
    if shutil.which("zsh"):
        r = subprocess.run(["zsh", "-n", os.path.join(ROOT, "completion", "_prism")],
                           capture_output=True, text=True)
        check("completion/_prism parses (zsh -n)", r.returncode == 0, r.stderr)
    # -n's words in the option table (here as completion gives them) are the normalizations
    # of the data (panels/versions), which analyze checks -n against
    line = [l.split()[1:] for l in open(os.path.join(ROOT, "panels", "versions"))
            if l.split()[:1] == ["normalizations"]]
    m = re.search(r'--normal-unit\) COMPREPLY=\(\$\(compgen -W "([^"]*)"', bash)
    check("-n's documented words are panels/versions' normalizations",
          line and m and m.group(1).split() == line[0], (line, m and m.group(1)))
    # the generated files are up to date: regenerating them changes nothing
    gen = os.path.join(BUILD, "gen", "optdoc")
    check("build/gen/optdoc is built (make)", os.access(gen, os.X_OK), gen)
    if os.access(gen, os.X_OK):
        jobs = [(["man", f"man/prism-{c}.1", c], f"man/prism-{c}.1")
                for c in ("analyze", "profile", "roofline", "database")]
        jobs += [(["bash", "completion/prism.bash"], "completion/prism.bash"),
                 (["zsh", "completion/_prism"], "completion/_prism")]
        for args, path in jobs:
            r = subprocess.run([gen] + args, capture_output=True, text=True, cwd=ROOT)
            check(f"{path} is what the option table gives (make docs)",
                  r.returncode == 0 and r.stdout == open(os.path.join(ROOT, path)).read(),
                  r.stderr.strip() or "differs: run make docs")
    print(f"{passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


def help_pair(cmd, short):
    """the long option of a short one, from --help"""
    out = subprocess.run([PRISM, cmd, "--help"], capture_output=True, text=True).stdout
    m = re.search(r"  " + re.escape(short) + r", (--[\w-]+)", out)
    return m.group(1) if m else None


if __name__ == "__main__":
    sys.exit(main())
