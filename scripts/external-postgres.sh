#!/usr/bin/env bash
# A PostgreSQL server that is not the embedded one, behind PgBouncer in transaction pooling
# mode, as an operator would run them: Debian's `postgresql` (15 on bookworm) and `pgbouncer`
# (apt-get install postgresql pgbouncer), with a throwaway configuration under DIR.
#
#   scripts/external-postgres.sh start DIR   # prints the environment to use, also in DIR/env
#   scripts/external-postgres.sh stop DIR
#
# Then, e.g.:  set -a; . DIR/env; set +a; npm start     (or npm test, or a part of it)
#
# DATABASE_URL goes through PgBouncer (transaction pooling: a server connection per
# transaction); DATABASE_DIRECT_URL reaches PostgreSQL itself, without a database name so that
# it follows DATABASE_URL's: Timbre uses it for LISTEN/NOTIFY (the operator change feed) and for
# the migrations' session lock, the two things a transaction pooler cannot carry.
#
# As root both servers run as the `postgres` user (neither runs as root), so DIR is handed to it.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pgbin" ] && [ -x "$pgbin/pg_ctl" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
command -v pgbouncer >/dev/null || { echo "PgBouncer is not installed (apt-get install pgbouncer)" >&2; exit 1; }

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

case "$cmd" in
start)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    id -u postgres >/dev/null 2>&1 || useradd --system --user-group --no-create-home postgres
    chown postgres:postgres "$dir"
    # Every parent must be traversable by postgres (a mktemp -d is 0700).
    p=$dir
    while [ "$p" != / ]; do p=$(dirname "$p"); runuser -u postgres -- test -x "$p" || chmod o+x "$p"; done
  fi
  pg_port=$(free_port)
  bouncer_port=$(free_port)
  password=$(node -e 'console.log(require("crypto").randomBytes(18).toString("base64url"))')
  as_pg sh -c "umask 077; printf '%s\n' '$password' > '$dir/pwfile'"
  as_pg "$pgbin/initdb" -D "$dir/pg" --auth=scram-sha-256 --username=postgres --pwfile="$dir/pwfile" \
    --encoding=UTF8 --no-locale >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/postgres.log" -w -t 60 \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$dir' -c max_connections=300" start >/dev/null
  # The role Timbre uses: not a superuser; CREATEDB so that tests can make their databases.
  PGPASSWORD=$password "$pgbin/psql" -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE timbre LOGIN CREATEDB PASSWORD '$password'" -c "CREATE DATABASE timbre OWNER timbre"
  as_pg sh -c "umask 077; cat > '$dir/userlist.txt'" <<EOF
"timbre" "$password"
EOF
  as_pg sh -c "cat > '$dir/pgbouncer.ini'" <<EOF
[databases]
; any database name: test runs create databases on the fly
* = host=127.0.0.1 port=$pg_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
max_db_connections = 100
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
  as_pg pgbouncer -d "$dir/pgbouncer.ini"
  for _ in $(seq 1 50); do
    PGPASSWORD=$password "$pgbin/psql" -qAt -h 127.0.0.1 -p "$bouncer_port" -U timbre -d timbre -c 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.1
  done
  cat >"$dir/env" <<EOF
DATABASE_URL=postgresql://timbre:$password@127.0.0.1:$bouncer_port/timbre
DATABASE_DIRECT_URL=postgresql://timbre:$password@127.0.0.1:$pg_port
EOF
  chmod 600 "$dir/env"
  echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port, PgBouncer $(pgbouncer --version | awk 'NR==1{print $2}') (transaction pooling) on 127.0.0.1:$bouncer_port" >&2
  cat "$dir/env"
  ;;
stop)
  [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
  [ -d "$dir/pg" ] && as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null 2>&1 || true
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
