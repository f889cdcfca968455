#!/bin/sh
# serve-web-config.sh - memprof-ctl serve --web-config-file, the format of
# the Prometheus exporter toolkit: HTTPS with a self-signed certificate
# made here (openssl), Basic authentication (a wrong password is 401, the
# right one 200), a Bearer token, an account that `readers` narrows to
# one local user, a client without credentials asked for them (but on
# loopback, where the owner of its socket is who it is), client
# certificates (RequireAndVerifyClientCert), and files
# refused at start with their line and problem.
# Then Prometheus scrapes it over HTTPS with Basic authentication.
. "$(dirname "$0")/../integration/common.sh"
. "$(dirname "$0")/../integration/ctl-helpers.sh"
. "$(dirname "$0")/serve-helpers.sh"

need_root "the accounts' local users"
command -v openssl >/dev/null || fail "openssl is not installed (apt-get install openssl)"
add_user spprof-t-srvw

# The server listens on all addresses: an address that is not loopback
# shows what a client from another host gets.
address=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m1 '^[0-9.]*$')
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	-addext "subjectAltName=IP:127.0.0.1${address:+,IP:$address}" \
	-keyout serve.key -out serve.crt \
	>openssl.out 2>&1 || fail "openssl: $(cat openssl.out)"
chmod 600 serve.key
cat >web.yml <<EOF2
# The exporter toolkit's keys, and two of memprof-ctl's own.
tls_server_config:
  cert_file: serve.crt
  key_file: serve.key
  min_version: TLS12
basic_auth_users:
  collector: $(bcrypt_hash 'right password')
  narrow: $(bcrypt_hash 'narrow password')
bearer_tokens:
  alloy: $(bcrypt_hash token-of-alloy)
readers:
  narrow: [$user]
EOF2
chmod 640 web.yml

SPPROF_OUTPUT=$scratch/rec.%p.mlyze start_hold rec
rec=$pid
start_user_hold own $user
own=$pid
start_serve --web-config-file web.yml --listen 0.0.0.0:0
https=https://127.0.0.1:${url##*:}
tls="--cacert serve.crt"

# Plain HTTP gets nothing.  Without credentials, root on loopback is
# root; from another address, a client is asked for them.
[ "$(status_of "" "$url/metrics")" = 200 ] && fail "plain HTTP answered"
expect_status 200 "" "$https/metrics" $tls
if [ -n "$address" ]; then
	expect_status 401 "" "https://$address:${url##*:}/metrics" $tls
	expect_status 401 "" "https://$address:${url##*:}/" $tls -D headers.out
	grep -qi '^www-authenticate: Basic' headers.out ||
		fail "no WWW-Authenticate: $(cat headers.out)"
else
	echo "no address but loopback: a client without credentials not tested"
fi
# Wrong credentials are refused, on loopback too.
expect_status 401 "" "$https/metrics" $tls -u 'collector:wrong password'
expect_status 401 "" "$https/metrics" $tls -u 'nobody:right password'
expect_status 401 "" "$https/metrics" $tls -H 'Authorization: Bearer wrong'
expect_status 401 "" "$https/metrics" $tls -H 'Authorization: Digest x'
expect_status 200 "" "$https/metrics" $tls -u 'collector:right password'
grep -q "pid=\"$rec\"" body.out || fail "no process of root in /metrics"
expect_status 200 "" "$https/debug/pprof/heap?pid=$rec" $tls \
	-H 'Authorization: Bearer token-of-alloy'
# narrow reads its local user's processes only.
expect_status 200 "" "$https/metrics" $tls -u 'narrow:narrow password'
grep -q "pid=\"$rec\"" body.out && fail "narrow reads root's process"
grep -q "pid=\"$own\"" body.out || fail "narrow does not read its user's process"
expect_status 403 "" "$https/debug/pprof/heap?pid=$rec" $tls -u 'narrow:narrow password'
expect_status 200 "" "$https/debug/pprof/heap?pid=$own" $tls -u 'narrow:narrow password'
stop_serve

# RequireAndVerifyClientCert: a client certificate that client_ca_file
# signed is needed, whoever the client is.
for name in ca stranger; do
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$name" \
		-keyout $name.key -out $name.crt >openssl.out 2>&1 ||
		fail "openssl: $(cat openssl.out)"
done
openssl req -newkey rsa:2048 -nodes -subj /CN=collector -keyout client.key \
	-out client.csr >openssl.out 2>&1 &&
openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
	-days 2 -out client.crt >openssl.out 2>&1 || fail "openssl: $(cat openssl.out)"
cat >mtls.yml <<EOF2
tls_server_config:
  cert_file: serve.crt
  key_file: serve.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
EOF2
start_serve --web-config-file mtls.yml
https=https://127.0.0.1:${url##*:}
expect_status 200 "" "$https/metrics" $tls --cert client.crt --key client.key
grep -q "pid=\"$rec\"" body.out || fail "no process of root in /metrics"
expect_status 403 "" "$https/metrics" $tls
expect_status 403 "" "$https/metrics" $tls --cert stranger.crt --key stranger.key
stop_serve

# Prometheus scrapes it as its documentation says, over HTTPS with Basic
# authentication.
if command -v prometheus >/dev/null; then
	cp serve.crt prometheus-ca.crt
	cat >prometheus.yml <<EOF2
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: spprof
    scheme: https
    tls_config:
      ca_file: prometheus-ca.crt
    basic_auth:
      username: collector
      password: right password
    static_configs:
      - targets: ["127.0.0.1:PORT"]
EOF2
	start_serve --web-config-file web.yml
	sed -i "s/PORT/${url##*:}/" prometheus.yml
	api_port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	timeout 300 prometheus --config.file=prometheus.yml \
		--storage.tsdb.path="$scratch/tsdb" \
		--web.listen-address=127.0.0.1:$api_port >prometheus.log 2>&1 &
	prom=$!
	at_exit "kill -TERM $prom 2>/dev/null"
	for i in $(seq 120); do
		curl -sf -G "http://127.0.0.1:$api_port/api/v1/query" \
			--data-urlencode "query=memprof_live_heap_bytes{pid=\"$rec\"}" \
			>query.out 2>/dev/null && grep -q '"value"' query.out && break
		kill -0 $prom 2>/dev/null || fail "prometheus ended: $(tail -3 prometheus.log)"
		sleep 1
	done
	grep -q '"value"' query.out ||
		fail "Prometheus has no live heap of $rec: $(cat query.out); $(tail -3 prometheus.log)"
	kill -TERM $prom
	wait $prom
	stop_serve
else
	echo "prometheus is not installed: its scrape over HTTPS not tested"
fi

# refused_config TEXT MESSAGE - a web configuration memprof-ctl refuses
# at start (exit status 1) with MESSAGE.
refused_config() {
	printf '%s\n' "$1" >bad.yml
	chmod 600 bad.yml
	"$ctl" serve --listen 127.0.0.1:0 --web-config-file bad.yml \
		>bad.out 2>&1 &
	bad=$!
	wait $bad
	status=$?
	[ $status = 1 ] || fail "status $status for '$1': $(cat bad.out)"
	grep -qF -- "$2" bad.out || fail "'$1': no '$2' in: $(cat bad.out)"
}
hash=$(bcrypt_hash x)
refused_config "basic_auth_users:
  a: $hash
colour: blue" "bad.yml:3: unknown key 'colour' in the file"
refused_config "tls_server_config:
  cert_file: a: b" "bad.yml:2: mapping values are not allowed"
refused_config "basic_auth_users:
  a: plain" "bad.yml:2: the hash of a is not a bcrypt hash"
refused_config "tls_server_config:
  cert_file: x.crt" "bad.yml:1: tls_server_config needs both cert_file and key_file"
refused_config "tls_server_config:
  cipher_suites: [TLS_AES_128_GCM_SHA256]" "bad.yml:2: cipher_suites is not supported"
refused_config "basic_auth_users:
  a: $hash
readers:
  b: all" "readers names b, who is in neither"
refused_config "basic_auth_users:
  a: $hash
readers:
  a: [no-such-user-of-spprof]" "no-such-user-of-spprof: no such local user"
refused_config "basic_auth_users:
  a: $hash
basic_auth_users:
  b: $hash" "bad.yml:3: basic_auth_users given twice"
# Hashes anyone may read can be guessed offline; a file others may
# write could add an account.
printf 'basic_auth_users:\n  a: %s\n' "$hash" >open.yml
chmod 644 open.yml
"$ctl" serve --listen 127.0.0.1:0 --web-config-file open.yml >bad.out 2>&1 &&
	fail "a readable file of accounts served"
grep -q "open.yml: it holds secrets that anyone may read" bad.out ||
	fail "refusal of a readable file: $(cat bad.out)"
chmod 620 open.yml
"$ctl" serve --listen 127.0.0.1:0 --web-config-file open.yml >bad.out 2>&1 &&
	fail "a writable file served"
grep -q "open.yml: others may write it" bad.out ||
	fail "refusal of a writable file: $(cat bad.out)"

end_hold rec $rec
touch "/run/user/$(id -u $user)/own.stop"
wait $own || fail "the user's own process: exit status $?"
pass
