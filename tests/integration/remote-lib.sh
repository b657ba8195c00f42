# remote-lib.sh: a real sshd on loopback, executors standing in for other
# machines, and the operator's console (source after libtest.sh).
#
#	start_sshd [nounlink] || { skip ...; done_testing; exit; }
#		sshd on 127.0.0.1 with a throwaway host key and user key,
#		a private sshd_config (no PAM); sets SSHCFG, BWGATE_SSH.
#		Every host name (machine-a, machine-b...) leads to it.
#	start_operator [OPTIONS...]	the console in $OP; sets OPID
#	start_executor NAME [OPTIONS...]
#		an executor for the project $T/NAME/proj, its own runtime
#		directory $T/NAME/run, in its own network namespace (and
#		mount namespace where bwrap can make one): sets EPID_NAME
#	link NAME	bwgate connect NAME:PROJECT in the background (with
#		--ssh "$LINK_SSH" when set); sets LPID_NAME
#	olist		the operator's queue as JSON
#	oid NAME STATE	the operator's id of NAME's first request in STATE

SSHD=${SSHD:-/usr/sbin/sshd}
OP=
OPID=

# Why sshd cannot run here, or nothing.
sshd_missing() {
	[ -x "$SSHD" ] || { echo "no $SSHD (openssh-server)"; return; }
	command -v ssh > /dev/null || { echo "no ssh client"; return; }
	command -v ssh-keygen > /dev/null || echo "no ssh-keygen"
}

start_sshd() {
	local port tries=0 user unlink=yes
	# "nounlink": sshd does not replace a socket a dead ssh left (the
	# executor must remove it for the next link).
	[ "${1:-}" = nounlink ] && unlink=no
	user=$(id -un) || return 1
	mkdir -p -m 0700 "$T/ssh"
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/id" || return 1
	cp "$T/ssh/id.pub" "$T/ssh/authorized_keys"
	chmod 0600 "$T/ssh/authorized_keys"
	# Root's privilege separation directory (the package makes it at
	# boot; a fresh container may lack it).
	if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then
		mkdir -p -m 0755 /run/sshd 2>/dev/null
	fi
	while [ $tries -lt 20 ]; do
		tries=$((tries + 1))
		port=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
		cat > "$T/ssh/sshd_config" <<EOF
ListenAddress 127.0.0.1:$port
HostKey $T/ssh/host
PidFile $T/ssh/sshd.pid
AuthorizedKeysFile $T/ssh/authorized_keys
AllowUsers $user
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowStreamLocalForwarding yes
StreamLocalBindUnlink $unlink
X11Forwarding no
PrintMotd no
LogLevel ERROR
EOF
		"$SSHD" -D -e -f "$T/ssh/sshd_config" 2> "$T/ssh/sshd.err" &
		SSHD_PID=$!
		# Listening once a connection gets the banner.
		if wait_for 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" \
		    2>/dev/null; then
			break
		fi
		kill "$SSHD_PID" 2>/dev/null; wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=
		grep -q 'Address already in use' "$T/ssh/sshd.err" || break
	done
	[ -n "${SSHD_PID:-}" ] || return 1
	printf '127.0.0.1 %s\n' "$(cut -d' ' -f1,2 "$T/ssh/host.pub")" | \
	    sed "s/^127.0.0.1/[127.0.0.1]:$port/" > "$T/ssh/known_hosts"
	cat > "$T/ssh/config" <<EOF
Host *
	HostName 127.0.0.1
	Port $port
	User $user
	HostKeyAlias [127.0.0.1]:$port
	IdentityFile $T/ssh/id
	IdentitiesOnly yes
	UserKnownHostsFile $T/ssh/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	LogLevel ERROR
EOF
	SSHCFG="$T/ssh/config"
	export BWGATE_SSH="ssh -F $SSHCFG"
	# A login works (the unprivileged pass may run an sshd that cannot
	# switch users: it serves its own user only, which is ours).
	ssh -F "$SSHCFG" machine-a true 2> "$T/ssh/login.err" || return 1
}

# Why start_sshd failed, in one line.
sshd_why() {
	{ grep -v kex_exchange "$T/ssh/sshd.err"; cat "$T/ssh/login.err"; } \
	    2>/dev/null | tail -n 2 | tr '\n' ' '
}

stop_sshd() {
	[ -n "${SSHD_PID:-}" ] && kill "$SSHD_PID" 2>/dev/null &&
	    wait "$SSHD_PID" 2>/dev/null
	SSHD_PID=
}

# The test rules: sleep and cat run at once; anything else asks.
remote_rules() {
	mkdir -p "$1/bwgate"
	cat > "$1/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"sleep","command":["sleep"],"verdict":"allow","profile":"readonly","reason":"waits"},
 {"id":"cat","command":["cat"],"verdict":"allow","profile":"readonly","reason":"reads"}
]}
JSON
}

# The environment of machine NAME (for its executor and its agents).
machine_env() {
	echo "-u BWGATE_SOCKET HOME=$T/$1/home XDG_RUNTIME_DIR=$T/$1/run" \
	    "XDG_CONFIG_HOME=$T/$1/config XDG_STATE_HOME=$T/$1/state" \
	    "BWGATE_DATADIR=$BWGATE_DATADIR" ${MACHINE_ENV_EXTRA:-}
}

# The wrapper that gives a machine its own network and mount namespaces:
# bwrap over the whole file system (the other machines' directories
# hidden), else unshare as root, else none (said in NS_NOTE).
machine_ns() {
	local name=$1 other hide=""
	# REMOTE_SAME_NS=1: none (bench-remote measures the link alone).
	[ -n "${REMOTE_SAME_NS:-}" ] && return
	for other in "$T"/machine-*; do
		[ -d "$other" ] && [ "$other" != "$T/$name" ] &&
		    hide="$hide --tmpfs $other"
	done
	# shellcheck disable=SC2086
	if bwrap --dev-bind / / --unshare-net $hide -- true 2>/dev/null; then
		echo "bwrap --dev-bind / / --unshare-net $hide --"
	elif [ "$(id -u)" = 0 ] && unshare -n -m true 2>/dev/null; then
		echo "unshare -n -m --"
	fi
}

start_executor() {
	local name=$1; shift
	local d="$T/$name" ns
	mkdir -p "$d/proj/.git" "$d/home" "$d/config" "$d/state"
	mkdir -p -m 0700 "$d/run"
	echo "[core]" > "$d/proj/.git/config"
	echo "data of $name" > "$d/proj/file.txt"
	remote_rules "$d/config"
	ns=$(machine_ns "$name")
	[ -n "$ns" ] || NS_NOTE="the executors share this machine's namespaces (neither bwrap nor unshare could make new ones)"
	# shellcheck disable=SC2046,SC2086
	(cd "$d/proj" && exec env $(machine_env "$name") $ns "$BWGATE" executor \
	    --log "$d/executor.log" "$@" > "$d/executor.out" \
	    2> "$d/executor.err") &
	eval "EPID_${name//-/_}=$!"
	MACHINES+=("$name")
	if ! wait_for 15 grep -q '^export BWGATE_SOCKET=' "$d/executor.out"; then
		echo "# executor $name did not start:"
		sed 's/^/# /' "$d/executor.err"
		return 1
	fi
}

# bwgate run on machine NAME, from its project (its own namespace is not
# needed: the agent socket is found from its environment).
mrun() {
	local name=$1; shift
	# shellcheck disable=SC2046
	(cd "$T/$name/proj" && exec timeout 60 env $(machine_env "$name") "$BWGATE" run "$@")
}

start_operator() {
	OP="$T/op"
	mkdir -p "$OP/proj/.git"
	echo "[core]" > "$OP/proj/.git/config"
	remote_rules "$XDG_CONFIG_HOME"
	(cd "$OP/proj" && exec "$BWGATE" --headless --log "$OP/console.log" \
	    "$@" > "$OP/console.out" 2> "$OP/console.err") &
	OPID=$!
	wait_for 10 grep -q '^export BWGATE_SOCKET=' "$OP/console.out" || {
		echo "# console did not start:"; sed 's/^/# /' "$OP/console.err"
		return 1
	}
}

# Stop an executor: under bwrap, the process started is bwrap and the
# executor its child.
stop_executor() {
	local p
	p=$(eval echo "\${EPID_${1//-/_}:-}")
	[ -n "$p" ] || return 0
	# shellcheck disable=SC2046
	kill -TERM $(pgrep -P "$p") "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	eval "EPID_${1//-/_}="
}

# Everything the test started, last first.
remote_teardown() {
	local n p
	for n in "${LINKS[@]}"; do
		p=$(eval echo "\${LPID_${n//-/_}:-}")
		[ -n "$p" ] && { kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; }
	done
	for n in "${MACHINES[@]}"; do stop_executor "$n"; done
	[ -n "$OPID" ] && { kill -TERM "$OPID" 2>/dev/null; wait "$OPID" 2>/dev/null; }
	stop_sshd
}
MACHINES=()
LINKS=()
TEARDOWN=remote_teardown

# bwgate connect NAME:PROJECT from the operator's project.
link() {
	local name=$1
	(cd "$OP/proj" && exec "$BWGATE" connect ${LINK_SSH:+--ssh "$LINK_SSH"} --remote-bwgate \
	    "env $(machine_env "$name") $BWGATE" "$name:$T/$name/proj" \
	    2>> "$T/$name/connect.err") &
	eval "LPID_${name//-/_}=$!"
	LINKS+=("$name")
}

olist() {
	(cd "$OP/proj" && "$BWGATE" list --json 2>/dev/null)
}

# The console's machines (bwgate hosts), as text or with --json.
ohosts() {
	(cd "$OP/proj" && "$BWGATE" hosts "$@" 2>&1)
}

# Does the operator's queue match a jq filter?
ohas() {
	olist | jq -e "$1" > /dev/null
}

# The operator's id of the first request of host NAME in STATE whose
# command matches WORD.
oid() {
	olist | jq -e -r --arg h "$1" --arg s "$2" --arg w "${3:-}" \
	    'first(.[] | select(.host == $h and .state == $s and
	    (.command | contains($w))) | .id)'
}

# Is machine NAME linked (the console said so)?
linked() {
	grep -q "$1: executor linked" "$OP/console.err"
}
