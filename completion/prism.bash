# bash completion for prism: subcommands, options, panel/table ids and architectures.
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

_prism()
{
        local cur prev cmd
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cmd=${COMP_WORDS[1]}
        if ((COMP_CWORD == 1)); then
                COMPREPLY=($(compgen -W "analyze profile roofline database check-data help --version --help" -- "$cur"))
                return
        fi
        case $cmd in
        analyze)
                case $prev in
                -p | --path | --save-dfs | -o | --output | --plot-dir) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                -n | --normal-unit) COMPREPLY=($(compgen -W "per_wave per_cycle per_second per_kernel" -- "$cur")); return ;;
                --compat) COMPREPLY=($(compgen -W "3.0 3.3" -- "$cur")); return ;;
                -t | --time-unit) COMPREPLY=($(compgen -W "s ms us ns" -- "$cur")); return ;;
                --sort) COMPREPLY=($(compgen -W "kernels dispatches" -- "$cur")); return ;;
                --list-metrics) COMPREPLY=($(compgen -W "$(_prism_archs)" -- "$cur")); return ;;
                --mem-level) COMPREPLY=($(compgen -W "HBM L2 vL1D L1 LDS DRAM Shared" -- "$cur")); return ;;
                esac
                # inside -b, offer ids
                local i
                for ((i = COMP_CWORD - 1; i > 1; i--)); do
                        [[ ${COMP_WORDS[i]} == -* ]] || continue
                        if [[ ${COMP_WORDS[i]} == -b || ${COMP_WORDS[i]} == --block ]] && [[ $cur != -* ]]; then
                                COMPREPLY=($(compgen -W "$(_prism_ids)" -- "$cur"))
                                return
                        fi
                        break
                done
                COMPREPLY=($(compgen -W "-p --path -b --block -k --kernel -d --dispatch --gpu-id -n --normal-unit --compat -t --time-unit --decimal --cols --max-stat-num --kernel-verbose --sort --list-stats --list-metrics --save-dfs --no-findings --width -o --output --mem-level --plot-dir --device --rank --tui --all-rows --help" -- "$cur"))
                ;;
        profile)
                case $prev in
                -p | --path) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                --arch) COMPREPLY=($(compgen -W "$(_prism_archs)" -- "$cur")); return ;;
                --backend) COMPREPLY=($(compgen -W "rocprof cupti" -- "$cur")); return ;;
                --join-type) COMPREPLY=($(compgen -W "grid kernel" -- "$cur")); return ;;
                --replay) COMPREPLY=($(compgen -W "kernel application" -- "$cur")); return ;;
                --clock-control) COMPREPLY=($(compgen -W "base none" -- "$cur")); return ;;
                --cache-control) COMPREPLY=($(compgen -W "all none" -- "$cur")); return ;;
                esac
                COMPREPLY=($(compgen -W "-n --name -p --path -k --kernel -d --dispatch -b --block --join-type --no-roof --roof-only --dry-run --arch --backend --resume --force --pass-timeout --replay --ranks --clock-control --cache-control -q --quiet --help" -- "$cur"))
                ;;
        roofline) COMPREPLY=($(compgen -W "--device -o --quick --help" -- "$cur")) ;;
        database)
                case $prev in
                --import) COMPREPLY=($(compgen -d -- "$cur")); return ;;
                --db) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                esac
                COMPREPLY=($(compgen -W "--import --db --help" -- "$cur"))
                ;;
        help) COMPREPLY=($(compgen -W "analyze profile roofline database check-data" -- "$cur")) ;;
        esac
}
complete -F _prism prism
