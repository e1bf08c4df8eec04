# Sourced by the validation scripts, which set BIN, OUT and BACKEND.
# run_config NAME: the config on stdin (up to its seed), ended by the lines every validation
# run shares (BACKEND, no plots, no checkpoints), is written to $OUT/NAME.ron and run into
# $OUT/NAME, its output in $OUT/NAME.log.
run_config() {
  local name=$1
  mkdir -p "$OUT/$name"
  {
    cat
    printf '    backend: %s,\n    plots: false,\n    checkpoint_every: 0,\n)\n' "$BACKEND"
  } > "$OUT/$name.ron"
  "$BIN" run "$OUT/$name.ron" --out "$OUT/$name" --force > "$OUT/$name.log" 2>&1 \
    || { echo "$name failed: $OUT/$name.log"; return 1; }
  echo "$name done"
}
