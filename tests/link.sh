#!/usr/bin/env bash
# How prism is linked: libyaml, libcsv, libsqlite3, libncursesw and libtinfo statically where
# their archives are installed, each one dynamically where its archive is missing (the
# compiler's -print-file-name then answers the bare name); libc stays dynamic.
set -u
cd "$(dirname "$0")/.."
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
CC=${CC:-cc}
# the libraries the Makefile would link, as make prints its variables (nothing is built)
libs() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u STATIC_LIBS make -s -pn "$@" prism 2>/dev/null |
         sed -n 's/^PKG_LIBS := //p' | tail -1; }

# a compiler that knows no libsqlite3.a and no libtinfo.a, and is cc for everything else
cat >"$T/cc" <<EOS
#!/bin/sh
case "\$1" in -print-file-name=libsqlite3.a|-print-file-name=libtinfo.a) echo "\${1#*=}"; exit 0 ;; esac
exec $CC "\$@"
EOS
chmod +x "$T/cc"
l=$(libs CC="$T/cc")
case " $l " in *" -lsqlite3 "*) ok "no libsqlite3.a: -lsqlite3 ($l)" ;; *) bad "no libsqlite3.a: $l" ;; esac
case " $l " in *" -ltinfo "*) ok "no libtinfo.a: -ltinfo" ;; *) bad "no libtinfo.a: $l" ;; esac
case "$l" in *libsqlite3.a*|*libtinfo.a*) bad "an archive that is missing is linked: $l" ;; *) ok "missing archives not named" ;; esac
for a in yaml csv ncursesw; do
        if [ "$("$CC" -print-file-name=lib$a.a)" != "lib$a.a" ]; then
                case " $l " in *" -l:lib$a.a "*) ok "lib$a.a linked statically" ;; *) bad "lib$a.a: $l" ;; esac
        fi
done
l=$(libs STATIC_DEPS=)
case "$l" in *-l:*) bad "STATIC_DEPS= still links an archive: $l" ;; *) ok "STATIC_DEPS= links dynamically" ;; esac
l=$(libs STATIC_LIBS=1)
case "$l" in *"-Wl,-Bstatic -lyaml -lcsv -Wl,-Bdynamic"*) ok "STATIC_LIBS=1: libyaml and libcsv static" ;; *) bad "STATIC_LIBS=1: $l" ;; esac
case "$l" in *-l:libyaml.a*|*-l:libcsv.a*) bad "STATIC_LIBS=1 names libyaml or libcsv twice: $l" ;; *) ok "STATIC_LIBS=1 names each once" ;; esac

# the binary under test: no shared object of a library whose archive exists
P=${PRISM:-./prism}
if [ -x "$P" ] && command -v readelf >/dev/null; then
        need=$(readelf -d "$P" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
        echo "$need" | grep -q "libc.so" && ok "libc dynamic ($need)" || bad "libc: $need"
        for a in yaml csv sqlite3 ncursesw tinfo; do
                [ "$("$CC" -print-file-name=lib$a.a)" = "lib$a.a" ] && continue
                case "$need" in *lib$a[.-]*) bad "$P needs lib$a's shared object ($need)" ;; *) ok "$P: lib$a static" ;; esac
        done
fi
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
