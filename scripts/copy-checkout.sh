# Sourced by .ci/run and scripts/test-loop.sh: `copy_checkout` copies the checkout (its tracked
# and new, non-ignored files, as a `git clone` would have them) into a fresh `mktemp -d`
# directory with nothing beside it, and sets $work to it. The directory is 0700, so as root
# this also proves the embedded PostgreSQL works from a clone its `postgres` user cannot enter.
# On exit, the copy and the embedded cluster its tests made are removed: as root, that cluster
# lives in /var/lib/timbre-pg/data-<first 16 hex of sha256(data dir)> (src/db/embedded.ts).
copy_checkout() {
  work=$(mktemp -d) || return 1
  local cluster_home
  cluster_home="/var/lib/timbre-pg/data-$(printf %s "$work/.data-test" | sha256sum | cut -c1-16)"
  # shellcheck disable=SC2064 # expanded now, on purpose: the paths are fixed from here on.
  trap "rm -rf '$work' '$cluster_home'" EXIT
  git ls-files -z --cached --others --exclude-standard |
    tar -cf - --null --ignore-failed-read -T - 2>/dev/null | tar -xf - -C "$work"
}
