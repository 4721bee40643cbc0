# Sourced by the tools that take OUT_DIR [FTBENCH] (the example and
# simulation scripts): a bad argument is one line naming it, exit 2.
#   ftb_out_ftbench SCRIPT ROOT "$@"   sets out (made) and ftbench
ftb_out_ftbench() {
  local script="$1" root="$2"; shift 2
  local usage="usage: $script OUT_DIR [FTBENCH]"
  [ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
  case "$1" in -*|'') echo "$script: OUT_DIR '$1' is not a folder name ($usage)" >&2; exit 2 ;; esac
  ftbench="${2:-$root/build/ftbench}"
  [ -x "$ftbench" ] && [ -f "$ftbench" ] ||
    { echo "$script: FTBENCH $ftbench is not an executable (build it: cmake --build build)" >&2; exit 2; }
  mkdir -p "$1" || { echo "$script: OUT_DIR $1 cannot be made" >&2; exit 2; }
  out="$1"
}
