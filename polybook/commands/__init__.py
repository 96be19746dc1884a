"""The command line and the commands around the stages (build, check, freeze, serve)."""
