# Shipped defaults, installed under $(pkgdatadir).
dist_pkgdata_DATA += %D%/bwgate/config.json
