#!/usr/bin/env bash
# Builds the Debian package from a copy of the tree, unpacks it into a scratch root and runs
# the installed prism there: it must find its own data and reproduce a known value.
set -u
cd "$(dirname "$0")/.."
if ! command -v dpkg-buildpackage >/dev/null || ! dpkg -s debhelper >/dev/null 2>&1; then
        echo "SKIP deb: dpkg-buildpackage or debhelper missing"; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
mkdir -p "$T/src"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$T/src" 2>/dev/null
( cd "$T/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u BUILD -u SAN -u PRISM_BIN -u OPTFLAGS -u CFLAGS dpkg-buildpackage -us -uc -b >"$T/build.log" 2>&1 ) && ok "dpkg-buildpackage -us -uc -b" || { bad "dpkg-buildpackage (see log)"; tail -20 "$T/build.log"; }
deb=$(ls "$T"/prism_*.deb 2>/dev/null | head -1)
if [ -n "$deb" ]; then
        deps=$(dpkg-deb -f "$deb" Depends)
        echo "$deps" | grep -qi cuda && bad "package depends on CUDA: $deps" || ok "depends on Debian libraries only: $deps"
        dpkg -x "$deb" "$T/root"
        [ -x "$T/root/usr/bin/prism" ] && ls "$T/root/usr/share/man/man1/prism-analyze.1"* >/dev/null 2>&1 && [ -d "$T/root/usr/share/prism/metrics" ] && [ -f "$T/root/usr/share/prism/rules/base.yaml" ] && ok "files installed" || bad "files missing"
        W=${PRISM_SHARED:-../shared}/rocprof-workloads/vcopy/MI200
        if [ -d "$W" ]; then
                out=$(env -u PRISM_DATA_DIR "$T/root/usr/bin/prism" analyze -p "$W" -b 2.1.1 2>&1)
                echo "$out" | grep -q "427.03" && ok "installed prism analyzes a workload" || { bad "installed prism: $out"; }
        fi
        env -u PRISM_DATA_DIR "$T/root/usr/bin/prism" check-data >/dev/null 2>&1 && ok "installed data checks" || bad "installed check-data"
fi
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
