#!/bin/bash
# pod-pids.sh with the limits off: a run without a cgroup of its own (as
# an ordinary user without a delegated cgroup, the CI's user pass, has)
# shares the project's pid namespace too, and is ended by its sandbox's
# IPC namespace (proctree.h, ipcns_signal): ps and pkill across requests,
# a timeout kills only its request, a daemon that left its session ends
# with it, a request whose bwgate is SIGKILLed leaves nothing (the pod).
export POD_PIDS_NO_CGROUP=1
. "$(dirname "$0")/pod-pids.sh"
