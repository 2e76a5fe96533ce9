# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for zt: commands, each command's options, sort keys and
# config keys. The lists come from zt itself (hidden options, as perf's
# --list-cmds and --list-opts), so they follow the binary being completed.
# Installed as $(PREFIX)/share/bash-completion/completions/zt; or: source it.

_zt_list() { # _zt_list ZT ARGS...: the words zt prints, nothing on a failure
	"$@" 2>/dev/null
}

_zt() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= zt=${COMP_WORDS[0]} cmd= sub= i w
	local -a words
	COMPREPLY=()
	# bash splits "--sort=dso" at '=': join such words back
	for ((i = 0; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ ${#words[@]} -gt 0 && ( $w == "=" || ${words[-1]} == *= ) ]] && ((i > 1)); then
			words[-1]+=$w
		else
			words+=("$w")
		fi
	done
	cur=${words[-1]}
	((${#words[@]} > 1)) && prev=${words[-2]}
	[[ $zt == */* || -n $(type -P "$zt") ]] || zt=zt

	# the command, and the subcommand of symbols and serve
	for ((i = 1; i < ${#words[@]} - 1; i++)); do
		w=${words[i]}
		if [[ -z $cmd ]]; then
			[[ $w == -* ]] || cmd=$w
		elif [[ -z $sub && ( $cmd == symbols || ( $cmd == serve && $w == token ) ) ]]; then
			[[ $w == -* ]] || sub=$w
		fi
	done

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$(_zt_list "$zt" --list-cmds) help --help --version" -- "$cur"))
		return
	fi
	case $cmd in
	help)
		COMPREPLY=($(compgen -W "$(_zt_list "$zt" --list-cmds)" -- "$cur"))
		return ;;
	symbols)
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "extract upload" -- "$cur"))
			return
		fi ;;
	serve)
		if [[ $sub == token && ${words[-2]} == token ]]; then
			COMPREPLY=($(compgen -W "create import list revoke" -- "$cur"))
			return
		fi ;;
	config)
		if [[ $cur != -* ]]; then
			compopt -o nospace 2>/dev/null
			COMPREPLY=($(compgen -S = -W "$(_zt_list "$zt" --list-config-keys)" -- "${cur%%=*}"))
			[[ $cur == *=* ]] && COMPREPLY=()
			return
		fi ;;
	esac

	# zt diff -c: what to compute
	if [[ $cmd == diff && ( $prev == -c || $prev == --compute ) ]]; then
		COMPREPLY=($(compgen -W "delta delta-abs ratio wdiff:" -- "$cur"))
		[[ ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
		return
	fi

	# sort keys: -s/--sort of report, top and diff, comma-separated lists
	local keys= sorting=
	if [[ ( $cmd == report || $cmd == top || $cmd == diff ) && ( $prev == -s || $prev == --sort ) ]]; then
		keys=$cur sorting=1
	elif [[ ( $cmd == report || $cmd == top || $cmd == diff ) && $cur == --sort=* ]]; then
		keys=${cur#--sort=} sorting=1
	fi
	if [[ -n $sorting ]]; then
		local pre=
		[[ $keys == *,* ]] && pre=${keys%,*},
		[[ $cur == --sort=* ]] && pre=--sort=$pre
		compopt -o nospace 2>/dev/null
		COMPREPLY=($(compgen -P "$pre" -W "$(_zt_list "$zt" --list-sort-keys)" -- "${keys##*,}"))
		# bash completes the part after '=' only
		[[ $cur == --sort=* && ${COMP_WORDS[COMP_CWORD]} != --sort=* ]] &&
			COMPREPLY=("${COMPREPLY[@]#--sort=}")
		return
	fi

	if [[ $cur == -* ]]; then
		local opts
		if [[ -n $sub ]]; then
			opts=$(_zt_list "$zt" "$cmd" "$sub" --list-opts)
		else
			opts=$(_zt_list "$zt" "$cmd" --list-opts)
		fi
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		# an option that takes a value: no space after its '='
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _zt zt
