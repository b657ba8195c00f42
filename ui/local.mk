# The ncurses console front end (linked into bwgate, never into libbwgate.a).
