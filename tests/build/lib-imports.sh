# lib-imports.sh: the import scan of the one-way checks (door.sh,
# spawn.sh); source it, define allowed(), then
#
#	imports_scan EXEMPT HINT DIR...
#
# looks at every object file under each DIR but the one named EXEMPT (a
# basename: the one way itself) with nm -u. An import that is one of
# $CALLS and is not in what `allowed SHORT` prints (SHORT: the object's
# name without its archive or program prefix, "spawn.o") is printed as
# "# SHORT imports CALL: HINT". Sets N (objects looked at); returns 1
# when it printed something.

imports_scan() {
	local exempt=$1 hint=$2 o base short ok c f bad=0
	shift 2
	N=0
	for o in $(find "$@" -name '*.o' | sort); do
		base=$(basename "$o")
		short=${base#*_a-}
		short=${short#bwgate-}
		short=${short#bwgate_helper-}
		short=${short#tests_fuzz_fuzz_*-}
		short=${short#tests_unit_test_*-}
		[ "$base" = "$exempt" ] && continue
		N=$((N + 1))
		ok=$(allowed "$short")
		for c in $(nm -u "$o" | awk '{ print $2 }' | sed 's/@.*//' |
		    sort -u); do
			for f in $CALLS; do
				[ "$c" = "$f" ] || continue
				case " $ok " in
				*" $c "*) ;;
				*) echo "# $short imports $c: $hint"
				   bad=1 ;;
				esac
			done
		done
	done
	return $bad
}
