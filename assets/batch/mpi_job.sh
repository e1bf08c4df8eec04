#!/bin/bash
# A run split over 4 GPUs under mpirun that resubmits itself until it ends (docs/batch.md).
#SBATCH --job-name=glass
#SBATCH --nodes=1 --ntasks=4 --gpus-per-task=1
#SBATCH --time=24:00:00
#SBATCH --output=%x-%j.log
# SIGUSR1 to this script 10 minutes before the limit, a second way to stop besides --wall-time.
#SBATCH --signal=B:USR1@600

config=${CONFIG:-glass.ron}
out=${OUT:-results/glass}
ranks=${RANKS:-4}
resume=()
[ -e "$out/checkpoint.bin" ] && resume=(--resume)

mpirun -n "$ranks" spinflip run "$config" --out "$out" "${resume[@]}" --wall-time 23h45m &
pid=$!
# mpirun ends the job at a SIGTERM of its own and exits with 1, even where every rank stopped
# with a checkpoint; SIGUSR1 it passes on to every rank, and the job ends with their 75.
trap 'kill -USR1 "$pid"' USR1 TERM
wait "$pid"
status=$?
# `wait` returns early when a trap runs: wait again for the job's own status.
while kill -0 "$pid" 2>/dev/null; do
    wait "$pid"
    status=$?
done

if [ "$status" -eq 75 ]; then
    sbatch "$0" # stopped with a checkpoint: continue in a new job
elif [ "$status" -ne 0 ]; then
    echo "spinflip failed with status $status" >&2
fi
exit "$status"
