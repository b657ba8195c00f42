/*
 * log: a debug log file (tmux's log.c idea). Off unless log_open() is called
 * (bwgate -v or --log FILE); never writes to the terminal.
 *
 *	log_debug("%s: started %d", __func__, pid);  (use the LOG macro)
 */
#ifndef BWGATE_LOG_H
#define BWGATE_LOG_H

int	 log_open(const char *path);
void	 log_close(void);
void	 log_write(const char *func, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#define LOG(...)	log_write(__func__, __VA_ARGS__)

#endif
