# bash completion for prism: subcommands, options, panel/table ids and architectures.
# The commands' options are generated from prism's option table (src/cmd_options.c) by
# `make docs`; the rest is written here.
# Ids and architecture names come from prism itself (prism analyze --list-metrics ARCH),
# so they follow the installed metric files.

_prism_ids()
{
        # ids of the architecture of the workload given with -p, else gfx90a's
        local arch=gfx90a dir="" i
        for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
                [[ ${COMP_WORDS[i]} == -p || ${COMP_WORDS[i]} == --path ]] && dir=${COMP_WORDS[i + 1]}
        done
        if [[ -n $dir && -f $dir/sysinfo.csv ]]; then
                prism analyze -p "$dir" --list-metrics 2>/dev/null
        else
                prism analyze --list-metrics "$arch" 2>/dev/null
        fi | sed -n 's/^[[:space:]]*\([0-9][0-9.]*\) ->.*/\1/p'
}

_prism_archs()
{
        local d
        for d in "$(dirname "$(command -v prism)")/metrics" "$(dirname "$(command -v prism)")/../share/prism/metrics" "${PRISM_DATA_DIR:-/nonexistent}/metrics"; do
                [[ -d $d ]] && sed -n 's/^archs:[[:space:]]*\[\(.*\)\].*/\1/p' "$d"/*.yaml | tr ',' '\n' | tr -d ' '
        done | sort -u
}

# the roofline's memory levels of every family (metrics/*.yaml roofline: levels), for
# --mem-level
_prism_levels()
{
        local d
        for d in "$(dirname "$(command -v prism)")/metrics" "$(dirname "$(command -v prism)")/../share/prism/metrics" "${PRISM_DATA_DIR:-/nonexistent}/metrics"; do
                [[ -d $d ]] && sed -n 's/^ *- {name: \([^,]*\),.*column:.*/\1/p; s/^ *- {name: [^,]*, also: \[\([^]]*\)\].*column:.*/\1/p' "$d"/*.yaml | tr ',' '\n' | tr -d ' '
        done | sort -u
}

_prism()
{
        local cur prev cmd
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cmd=${COMP_WORDS[1]}
        # commands: generated from src/cmd_options.c (make docs)
        if ((COMP_CWORD == 1)); then
                COMPREPLY=($(compgen -W "analyze profile roofline database check-data help --version --help" -- "$cur"))
                return
        fi
        case $cmd in
        analyze)
                case $prev in
                -p | --path) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                -n | --normal-unit) COMPREPLY=($(compgen -W "per_wave per_cycle per_second per_kernel" -- "$cur")); return ;;
                --compat) COMPREPLY=($(compgen -W "3.0 3.3 3.10" -- "$cur")); return ;;
                -t | --time-unit) COMPREPLY=($(compgen -W "s ms us ns" -- "$cur")); return ;;
                --include-cols) COMPREPLY=($(compgen -W "Description" -- "$cur")); return ;;
                --mem-level) COMPREPLY=($(compgen -W "$(_prism_levels)" -- "$cur")); return ;;
                --sort) COMPREPLY=($(compgen -W "kernels dispatches" -- "$cur")); return ;;
                --plot-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                --list-metrics) COMPREPLY=($(compgen -W "$(_prism_archs)" -- "$cur")); return ;;
                --save-dfs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                --pc-sampling-sorting-type) COMPREPLY=($(compgen -W "offset count" -- "$cur")); return ;;
                -o | --output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                esac
                local i
                for ((i = COMP_CWORD - 1; i > 1; i--)); do
                        [[ ${COMP_WORDS[i]} == -* ]] || continue
                        if [[ ${COMP_WORDS[i]} == -b || ${COMP_WORDS[i]} == --block ]] && [[ $cur != -* ]]; then
                                COMPREPLY=($(compgen -W "$(_prism_ids)" -- "$cur"))
                                return
                        fi
                        break
                done
                COMPREPLY=($(compgen -W "-p --path -b --block -k --kernel -d --dispatch --gpu-id --rank -n --normal-unit --compat -t --time-unit --decimal --all-rows --cols --include-cols --max-stat-num --kernel-verbose --mem-level --sort --device --plot-dir --list-stats --list-metrics --save-dfs --no-findings --pc-sampling-sorting-type --width -o --output --tui -h --help" -- "$cur"))
                ;;
        profile)
                case $prev in
                -p | --path) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                --join-type) COMPREPLY=($(compgen -W "kernel grid" -- "$cur")); return ;;
                --arch) COMPREPLY=($(compgen -W "$(_prism_archs)" -- "$cur")); return ;;
                --backend) COMPREPLY=($(compgen -W "rocprof cupti" -- "$cur")); return ;;
                --replay) COMPREPLY=($(compgen -W "kernel application" -- "$cur")); return ;;
                --clock-control) COMPREPLY=($(compgen -W "base none" -- "$cur")); return ;;
                --cache-control) COMPREPLY=($(compgen -W "all none" -- "$cur")); return ;;
                --pc-sampling-method) COMPREPLY=($(compgen -W "stochastic host_trap" -- "$cur")); return ;;
                esac
                COMPREPLY=($(compgen -W "-n --name -p --path -k --kernel -d --dispatch -b --block --join-type --dry-run --arch --backend --no-roof --roof-only --force --resume --pass-timeout --replay --ranks --clock-control --cache-control --no-pc-sampling --pc-sampling-method --pc-sampling-interval -q --quiet -h --help" -- "$cur"))
                ;;
        roofline)
                case $prev in
                -o | --output) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                esac
                COMPREPLY=($(compgen -W "--device -o --output --quick -h --help" -- "$cur"))
                ;;
        database)
                case $prev in
                --import) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                --db) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                --info) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                esac
                COMPREPLY=($(compgen -W "--import --db --force --info -h --help" -- "$cur"))
                ;;
        check-data)
                case $prev in
                esac
                COMPREPLY=($(compgen -W "-h --help" -- "$cur"))
                ;;
        help) COMPREPLY=($(compgen -W "analyze profile roofline database check-data" -- "$cur")) ;;
        esac
        # end of commands
}
complete -F _prism prism
