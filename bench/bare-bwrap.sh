# bare-bwrap.sh: sourced by the benchmarks. The baseline they measure
# bwgate against: bare bwrap running the sandbox of a bwgate report.
#
#	bare_bwrap REPORT.json	sets BARE_LINE, a line for `bash -c`, and
#				BARE_CLEAN, the paths to remove after each run
#
# The same mounts, with the descriptors opened by the shell from the same
# paths; without bwgate's helper (its mount and its place before the
# command), the --block-fd hold and the --seccomp programs. A placeholder
# bwgate would have made (a protected path absent from the project) is
# bound from /dev/null: bwrap then makes the mount point in the project
# itself, and BARE_CLEAN names those for removal outside the timing, as
# bwgate removes its placeholders.
HELPER=/run/bwgate/helper

bare_bwrap() {
	local a argv=() redir=() i p src
	mapfile -t a < <(jq -r '.bwrap_argv[]' "$1")
	BARE_CLEAN=()
	for ((i = 0; i < ${#a[@]}; i++)); do
		case "${a[$i]}" in
		--bind-fd|--ro-bind-fd|--ro-bind-data)
			p=${a[$((i + 2))]}
			if [ "$p" != "$HELPER" ]; then
				src=$p
				if [ ! -e "$p" ]; then
					src=/dev/null
					BARE_CLEAN+=("$p")
				fi
				redir+=("${a[$((i + 1))]}<$(printf '%q' "$src")")
				argv+=("${a[@]:$i:3}")
			fi
			i=$((i + 2)) ;;
		--seccomp|--block-fd) i=$((i + 1)) ;;
		--json-status-fd)
			redir+=("${a[$((i + 1))]}>/dev/null")
			argv+=("${a[@]:$i:2}")
			i=$((i + 1)) ;;
		--)	argv+=(--)
			# "-- HELPER FD -- COMMAND": the command alone.
			[ "${a[$((i + 1))]}" = "$HELPER" ] && i=$((i + 3)) ;;
		*)	argv+=("${a[$i]}") ;;
		esac
	done
	BARE_LINE="exec ${redir[*]} $(printf '%q ' "${argv[@]}")"
}

# Remove the mount points a bare run left in the project.
bare_clean() {
	[ ${#BARE_CLEAN[@]} -eq 0 ] || rm -f -- "${BARE_CLEAN[@]}"
}
