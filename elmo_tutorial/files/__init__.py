"""File safety in one place: nothing the package writes is lost or half-written, and nothing
it reads is other than what it seems.

  safe_files     write-then-rename (atomic_write, atomic_create), digests and SHA256SUMS,
                 DamagedFile, DiskFull: one full-disk language for every writer
  guarded_read   regular files only, inside their folder, of a bounded size, checked before
                 they are read (a FIFO, /dev/zero or a planted link is refused at once)
  overwrite      no lost work: output files and run folders are never silently replaced
  run_lock       one writer per folder (a POSIX lock, with its holder named)
  report_files   the reports' markdown tables and their --json/--markdown files
  cache_record   cache entries that prove themselves before they are read
  archives       safe extraction (no path out of the target, no bomb)
"""
