"""Exit codes of the command line."""

#: Success.
EXIT_OK = 0
#: Bad input: one line on stderr naming the parameter (or file and key) and the allowed range.
EXIT_INPUT = 2
#: A step failed after its retries, or the run diverged: the partial result is written first.
EXIT_SOLVER = 3
#: Results could not be written (read-only or full disk, file-size limit): the line says where
#: the last good result is and where the run's data was rescued to.
EXIT_WRITE = 4
#: Interrupted (Ctrl-C or SIGTERM): the current step is finished and the partial result written.
EXIT_INTERRUPTED = 130
