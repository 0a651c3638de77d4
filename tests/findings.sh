#!/bin/sh
# Golden tests of the findings (see findings.py).
exec python3 "$(dirname "$0")/findings.py" "$@"
