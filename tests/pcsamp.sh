#!/bin/sh
# CLI tests of PC sampling (panel 21; see pcsamp.py).
exec python3 "$(dirname "$0")/pcsamp.py" "$@"
