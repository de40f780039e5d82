#!/bin/bash
# Samples the pre-training workers' memory (RssAnon, RssShmem in kB) every 60 s.
while true; do
  for p in $(pgrep -f "ray::RayTrainWorker"); do
    a=$(awk '/RssAnon/{print $2}' /proc/$p/status 2>/dev/null); s=$(awk '/RssShmem/{print $2}' /proc/$p/status 2>/dev/null)
    st=$(grep -o "step [0-9]*/6000" $(ls -t logs/pretrain_real_small_s*.log | head -1) | tail -1)
    echo "$(date -u +%T) pid $p anon_kB $a shmem_kB $s $st"
  done
  sleep 60
done
