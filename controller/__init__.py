"""The table service and the `mjtable` command line. Imports here must stay light."""
