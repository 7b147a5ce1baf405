"""The user's work kept safe: nothing the package writes is half-written or silently replaced.

  safe_files     write-then-rename (atomic_write, staged_folder), SHA256SUMS and DamagedFile
  overwrite      output files and run folders are replaced only with --force, and --force
                 replaces only a run of this package
  run_lock       one writer per run folder (filelock)
  records        the reports' typed JSON results
  report_files   the reports' markdown tables and their --json/--markdown files
"""
