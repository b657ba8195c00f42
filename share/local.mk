# Shipped defaults, installed under $(pkgdatadir).
dist_pkgdata_DATA += %D%/bwgate/config.json
dist_pkgdata_DATA += %D%/bwgate/allowlist.json
dist_pkgdata_DATA += %D%/bwgate/agent-config.json
dist_pkgdata_SCRIPTS = %D%/bwgate/demo.sh
dist_pkgdata_DATA += %D%/bwgate/danger.json
dist_pkgdata_DATA += %D%/bwgate/needs.json
dist_pkgdata_DATA += %D%/bwgate/deletes.json
dist_pkgdata_DATA += %D%/bwgate/secrets.json
dist_pkgdata_DATA += %D%/bwgate/env-ask.json
# Named groups of hosts for "domains" ("@npm"; policy/netgroups.h).
dist_pkgdata_DATA += %D%/bwgate/domain-groups.json
