"""What a run leaves behind: the run directory, its metrics and summary, and reading it back."""
