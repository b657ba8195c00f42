# Manual pages and reference documents.
dist_man_MANS += %D%/bwgate.1
dist_man_MANS += %D%/bwgate-allowlist.5
EXTRA_DIST += %D%/report.md
EXTRA_DIST += %D%/change-report.md
EXTRA_DIST += %D%/live-events.md
EXTRA_DIST += %D%/protocol.md
EXTRA_DIST += %D%/agents.md
EXTRA_DIST += %D%/remote.md
EXTRA_DIST += %D%/HACKING-libraries.md
EXTRA_DIST += %D%/HACKING.md
